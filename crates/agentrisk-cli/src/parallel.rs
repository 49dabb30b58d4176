//! Many files on every core: `batch`, `run`, `site` and `pack` (and the
//! batches `diff` and `history` read) hand each file to a thread of a pool
//! and take the results back in the files' order, so what they print and
//! write is the same, byte for byte, whatever the number of threads.
//!
//! The core's calls on one file are `Sync`, and this shell decides how
//! many run at once. Inside one trace the core reads the events on the
//! threads of the pool its call runs on (`agentrisk::util::map_in_order`),
//! so `--jobs` bounds those threads too.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

pub use rayon::ThreadPool;

/// `-j N`, shared by the commands that read many files.
#[derive(clap::Args)]
pub struct JobsFlag {
    /// Files analysed at once (default: RAYON_NUM_THREADS, else one per core); the output is the same for any N
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<NonZeroUsize>,
}

impl JobsFlag {
    /// The pool of `--jobs` threads (see [`pool`]).
    pub fn pool(&self) -> Result<ThreadPool, String> {
        pool(self.jobs)
    }
}

/// A pool of `threads` threads; without a number, rayon's default:
/// `RAYON_NUM_THREADS`, else one per core.
pub fn pool(threads: Option<NonZeroUsize>) -> Result<ThreadPool, String> {
    let builder = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("agentrisk-{i}"));
    let builder = match threads {
        Some(threads) => builder.num_threads(threads.get()),
        None => builder,
    };
    builder.build().map_err(|e| format!("cannot start the threads: {e}"))
}

/// Readies the process for `files` files on `pool`, when there are several:
/// the core's detector patterns are compiled on the pool's threads at once
/// (otherwise the first trace's thread compiles them all while the other
/// threads' traces wait), and the allocator keeps freed pages for a while
/// (`malloc::many_files`).
pub fn prepare(pool: &ThreadPool, files: usize) {
    if files > 1 {
        pool.install(agentrisk::analyser::compile_patterns);
        crate::malloc::many_files();
    }
}

/// Files in flight per thread (being read, analysed, or done and waiting
/// for the ones before them): enough that one slow file does not hold the
/// others' threads idle, few enough that memory stays that of a few files
/// per thread, however many files there are.
const WINDOW_PER_THREAD: usize = 4;

/// `work` on each of `items` on `pool`'s threads; `each` gets each item
/// with its result on this thread, in the items' order, as soon as the
/// ones before it are done. A panic in `work` is raised here. Called from
/// a thread outside `pool` (this thread waits for results).
pub fn in_order<T: Sync, R: Send>(
    pool: &ThreadPool,
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    mut each: impl FnMut(&T, R),
) {
    let window = pool.current_num_threads().max(1) * WINDOW_PER_THREAD;
    let (sender, results) = std::sync::mpsc::channel();
    // In place: this thread waits for results without taking a pool thread.
    pool.in_place_scope(|scope| {
        let mut waiting = BTreeMap::new();
        let (mut started, mut done) = (0, 0);
        while done < items.len() {
            while started < items.len() && started < done + window {
                let Some(item) = items.get(started) else { break };
                let (index, sender, work) = (started, sender.clone(), &work);
                scope.spawn(move |_| {
                    // The receiver lives until every item is in, so a send cannot fail.
                    sender.send((index, catch_unwind(AssertUnwindSafe(|| work(item))))).ok();
                });
                started += 1;
            }
            // This thread holds a sender, so `recv` waits rather than fails.
            let Ok((index, result)) = results.recv() else { break };
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&done) {
                match (result, items.get(done)) {
                    (Ok(result), Some(item)) => each(item, result),
                    (Err(panic), _) => resume_unwind(panic),
                    (Ok(_), None) => {}
                }
                done += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    #[test]
    fn results_come_back_in_order_with_a_window_in_flight() {
        for threads in [1, 3] {
            let pool = pool(NonZeroUsize::new(threads)).unwrap();
            let items: Vec<u64> = (0..300).collect();
            let started = AtomicUsize::new(0);
            let mut seen = Vec::new();
            let mut most_ahead = 0;
            in_order(
                &pool,
                &items,
                |&i| {
                    started.fetch_add(1, SeqCst);
                    // Later items finish sooner, so results arrive out of order.
                    std::thread::sleep(std::time::Duration::from_micros(300 - i));
                    i * 2
                },
                |_, doubled| {
                    seen.push(doubled);
                    most_ahead = most_ahead.max(started.load(SeqCst) - seen.len());
                },
            );
            assert_eq!(seen, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "{threads} threads");
            let window = threads * WINDOW_PER_THREAD;
            assert!(most_ahead < window, "{most_ahead} started ahead of the results, window {window}");
        }
    }

    #[test]
    fn jobs_sets_the_number_of_threads() {
        assert_eq!(pool(NonZeroUsize::new(3)).unwrap().current_num_threads(), 3);
        assert_eq!(pool(NonZeroUsize::new(1)).unwrap().current_num_threads(), 1);
    }

    #[test]
    fn a_panic_in_the_work_is_raised_to_the_caller() {
        let pool = pool(NonZeroUsize::new(2)).unwrap();
        let items: Vec<u32> = (0..20).collect();
        let mut before = Vec::new();
        let caught = catch_unwind(AssertUnwindSafe(|| {
            in_order(&pool, &items, |&i| assert_ne!(i, 7, "seven"), |&i, ()| before.push(i))
        }));
        assert!(caught.is_err());
        assert_eq!(before, (0..7).collect::<Vec<_>>(), "the items before the panic were each handed on");
    }
}
