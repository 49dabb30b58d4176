//! Allocator tuning for the native binaries (glibc on Linux only).
//!
//! glibc raises its mmap threshold each time a large block is freed (up to
//! 32 MB), after which large lists come from the heap instead: freeing them
//! leaves holes the heap keeps resident, and growing them leaves the old
//! copies behind. An analysis frees many large lists (the input bytes, the
//! per-pass indexes), so with the moving threshold a 20 MB trace peaked at
//! about 10 MB more resident memory than it held. A fixed threshold keeps
//! every large block in its own mapping, given back to the system when freed.

/// Fixes glibc's mmap threshold at its default (128 KiB). Call first thing.
pub fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const M_MMAP_THRESHOLD: i32 = -3;
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // SAFETY: `mallopt` only sets an allocator parameter; it is called
        // before any other thread exists.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        }
    }
}
