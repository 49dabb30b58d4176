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

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc 3's option number (`mi_option_e` in its `mimalloc.h`).
const MI_OPTION_PURGE_DELAY: i32 = 15;

extern "C" {
    // Part of mimalloc's C API, linked in with the allocator itself.
    fn mi_option_set(option: i32, value: std::ffi::c_long);
}

/// Sets the allocator's options. Call first thing in `main`.
pub fn configure() {
    // SAFETY: `mi_option_set` only stores an option value; the numbers are
    // those of the mimalloc version the `mimalloc` crate builds (v3).
    unsafe {
        mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
}
