//! A node's random stream that exists only once it is drawn from.
//!
//! Every NIC owns two streams (link losses and ExpressPass credits; clock
//! jitter on delay samples), but most runs never draw from them: a ChaCha8
//! generator is about 300 bytes, which made the two half of a NIC's state on a
//! 262,144-host fabric. [`LazyRng`] keeps the seed (8 bytes) and makes the
//! generator at the first draw. The stream is the seed's whatever the time of
//! that draw, so results are those of a generator made up front.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `ChaCha8Rng::seed_from_u64(seed)`, made at its first draw.
#[derive(Clone, Debug)]
pub struct LazyRng {
    seed: u64,
    rng: Option<Box<ChaCha8Rng>>,
}

impl LazyRng {
    pub fn new(seed: u64) -> LazyRng {
        LazyRng { seed, rng: None }
    }

    fn get(&mut self) -> &mut ChaCha8Rng {
        let seed = self.seed;
        self.rng
            .get_or_insert_with(|| Box::new(ChaCha8Rng::seed_from_u64(seed)))
    }

    /// Whether the stream has been drawn from.
    pub fn drawn(&self) -> bool {
        self.rng.is_some()
    }
}

impl RngCore for LazyRng {
    fn next_u32(&mut self) -> u32 {
        self.get().next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.get().next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.get().fill_bytes(dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn the_stream_is_the_seeds_and_is_made_at_the_first_draw() {
        let mut lazy = LazyRng::new(42);
        assert!(!lazy.drawn());
        let mut eager = ChaCha8Rng::seed_from_u64(42);
        for _ in 0..100 {
            assert_eq!(lazy.random::<u64>(), eager.random::<u64>());
            assert_eq!(lazy.random_range(0..7u32), eager.random_range(0..7u32));
        }
        assert!(lazy.drawn());
        assert!(std::mem::size_of::<LazyRng>() <= 16);
    }
}
