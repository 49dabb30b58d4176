//! The native binaries' allocator: mimalloc, set to give freed memory back
//! to the system at once.
//!
//! An analysis makes millions of small, short-lived allocations (event
//! texts, findings, report rows); mimalloc serves them about a fifth faster
//! than glibc's allocator (100 000 events: 0.96 s → 0.86 s end to end).
//! Left at its defaults it asks for transparent huge pages (each touched
//! 4 KB page can then hold 2 MB) and keeps freed pages resident for a
//! while, which raised the peak of a 20 MB trace from 78 MB to 152 MB.
//! Built without huge pages (the crate's `no_thp` feature) and purging freed
//! pages at once, it peaks where glibc did. `agentrisk-bench` measures both.
//!
//! Many small traces on several threads are the other way round: each
//! purge is a system call that also stops the other threads' processors
//! to flush their address translations, and at once means about one and a
//! half per trace. There freed pages are kept for 100 ms ([`many_files`]):
//! 1 000 traces on 2 threads went from 1.58× to 1.68× the speed of one
//! thread, for 3 MB more at the peak (docs/performance.md).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc 3's option number (`mi_option_e` in its `mimalloc.h`).
const MI_OPTION_PURGE_DELAY: i32 = 15;

extern "C" {
    // Part of mimalloc's C API, linked in with the allocator itself.
    fn mi_option_set(option: i32, value: std::ffi::c_long);
}

/// How long freed pages stay resident when many files are read at once.
const MANY_FILES_PURGE_DELAY_MS: std::ffi::c_long = 100;

/// Sets the allocator's options. Call first thing in `main`.
pub fn configure() {
    // SAFETY: `mi_option_set` only stores an option value; the numbers are
    // those of the mimalloc version the `mimalloc` crate builds (v3).
    unsafe {
        mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
}

/// Keeps freed pages for a while instead of purging them at once: for a
/// command about to read many files on several threads.
#[allow(dead_code)] // the benchmarks of one trace include this file too
pub fn many_files() {
    // SAFETY: as in `configure`; the option may change at any time.
    unsafe {
        mi_option_set(MI_OPTION_PURGE_DELAY, MANY_FILES_PURGE_DELAY_MS);
    }
}
