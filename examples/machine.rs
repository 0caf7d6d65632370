//! What the machine under a benchmark does, for turning instruction counts
//! and simulated cache misses into time (docs/performance-log.md, f81a6ab,
//! "where an event's time goes"):
//!
//! - the core's clock while it runs, from a chain of dependent 64-bit
//!   multiplications (a square of the last result, 3 cycles each on AMD Zen
//!   and recent Intel cores), since a VM's `/proc/cpuinfo` shows the nominal
//!   clock, not the boosted one;
//! - how long a load that misses takes, by working-set size: a chain of
//!   dependent loads through a random cyclic permutation of cache lines (no
//!   two consecutive loads near each other, so neither the hardware
//!   prefetcher nor memory-level parallelism helps), in nanoseconds a load.
//!
//! ```text
//! cargo run --release --example machine
//! GLIBC_TUNABLES=glibc.malloc.hugetlb=1 cargo run --release --example machine   # heap on huge pages, as rocesim runs
//! ```

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// One cache line, holding the index of the next line of the chain.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line {
    next: usize,
}

fn ns_per_load(bytes: usize, loads: usize) -> f64 {
    let n = bytes / 64;
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(1));
    let mut lines = vec![Line { next: 0 }; n];
    for (k, &at) in order.iter().enumerate() {
        lines[at].next = order[(k + 1) % n];
    }
    let mut p = order[0];
    for _ in 0..n {
        p = lines[p].next;
    }
    let t = Instant::now();
    for _ in 0..loads {
        p = lines[p].next;
    }
    let ns = t.elapsed().as_nanos() as f64 / loads as f64;
    // The chain's end, so that the loads are not optimized away.
    std::hint::black_box(p);
    ns
}

/// Nanoseconds a dependent 64-bit multiplication takes: `x` squared over and
/// over (odd, so it never becomes 0; a product by a constant would be
/// reassociated by the compiler into fewer, independent ones).
fn ns_per_multiply(n: u64) -> f64 {
    let mut x = std::hint::black_box(0x9E37_79B9_7F4A_7C15u64);
    let t = Instant::now();
    for _ in 0..n {
        x = x.wrapping_mul(x);
    }
    let ns = t.elapsed().as_nanos() as f64 / n as f64;
    std::hint::black_box(x);
    ns
}

fn main() {
    let ns = ns_per_multiply(500_000_000);
    println!(
        "clock: {ns:.3} ns a dependent multiplication, {:.2} GHz at 3 cycles each",
        3.0 / ns
    );
    println!("working set   ns per dependent load");
    // The L3 range in MiB steps: the VM's share of the shared L3 changes
    // from day to day, and the 320-host fat-tree's working set (2-8 MiB)
    // sits in it (docs/performance-log.md, d7e8d05, "the cache's share").
    let sizes = [16, 256, 512, 2048, 3072, 4096, 6144, 8192, 12288];
    for kib in sizes.into_iter().chain([24 * 1024, 256 * 1024]) {
        let ns = ns_per_load(kib * 1024, 20_000_000);
        println!("{:>8} KiB   {ns:>6.1}", kib);
    }
}
