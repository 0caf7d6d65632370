//! The event queue under a "hold" workload: `N` events stay pending while each
//! step pops the earliest and schedules one more at `now + delay`, the delay drawn
//! like packet events (mostly 0–5 µs ahead, picosecond resolution). Delays come
//! from a seeded ChaCha8 stream, drawn up front so the rng is not measured.
//! Entries are ordered by `(time, lead, event)` and take 16 bytes.
//!
//! `cargo bench --bench event_queue -- --noplot` (criterion's plots need system
//! fonts; without them the run panics after the first benchmark).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rocesim::engine::EventQueue;
use rocesim::units::{Delta, SimTime};
use std::hint::black_box;

const DELAYS: usize = 1 << 16;

/// Packet-like delays in ps: 10% at once (ties), 80% within 5 µs, 10% up to 100 µs.
fn delays(seed: u64) -> Vec<Delta> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..DELAYS)
        .map(|_| {
            let ps = match rng.random_range(0..10) {
                0 => 0,
                9 => rng.random_range(5_000_000..100_000_000u64),
                _ => rng.random_range(0..5_000_000u64),
            };
            Delta::from_ps(ps)
        })
        .collect()
}

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("hold");
    g.throughput(Throughput::Elements(1));
    for n in [1_000usize, 100_000] {
        let d = delays(7);
        g.bench_with_input(BenchmarkId::new("pop-push", n), &n, |b, &n| {
            let mut q = EventQueue::new();
            for (i, &dt) in d.iter().cycle().take(n).enumerate() {
                q.schedule(SimTime::ZERO + dt, i as u32);
            }
            let mut i = 0usize;
            b.iter(|| {
                let (t, e) = q.pop().expect("n events pending");
                q.schedule(t + d[i & (DELAYS - 1)], black_box(e));
                i += 1;
            });
        });
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
