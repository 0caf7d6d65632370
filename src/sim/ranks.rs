//! The MPI ranks of one run (`rocesim run --mpi`, cargo feature `mpi`): the
//! collective operations the distributed event loop ([`super::distributed`])
//! needs, over byte buffers and `u64` vectors. Records cross ranks encoded by
//! serde with postcard.

use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub(crate) struct Ranks {
    world: SimpleCommunicator,
    /// This process's rank: it runs partition `rank`.
    pub rank: usize,
    /// Ranks in the run (= partitions).
    pub size: usize,
}

/// Start of each rank's bytes in a buffer of all of them.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect()
}

/// Splits `buf` into the ranks' parts.
fn split(buf: &[u8], counts: &[Count]) -> Vec<Vec<u8>> {
    let mut at = 0;
    counts
        .iter()
        .map(|&c| {
            let v = buf[at..at + c as usize].to_vec();
            at += c as usize;
            v
        })
        .collect()
}

fn count(len: usize) -> Count {
    Count::try_from(len).expect("an MPI message under 2 GB")
}

/// `len` bytes (zeroed) with one more allocated. OpenMPI's `MPI_IN_PLACE` is
/// the address 1, which is where an empty `Vec<u8>` points: a byte buffer
/// handed to MPI must have a real allocation even when it holds nothing.
fn buffer(len: usize) -> Vec<u8> {
    vec![0u8; len + 1]
}

/// `bytes` in a buffer [`buffer`] would make (their length is `bytes.len()`).
fn padded(bytes: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(bytes.len() + 1);
    b.extend_from_slice(bytes);
    b.push(0);
    b
}

impl Ranks {
    /// The world of MPI, which the caller has initialized (`rocesim run --mpi`).
    pub fn world() -> Ranks {
        let world = SimpleCommunicator::world();
        Ranks {
            rank: world.rank() as usize,
            size: world.size() as usize,
            world,
        }
    }

    /// Every rank's `mine` (all of the same length), in rank order.
    pub fn all_gather(&self, mine: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; mine.len() * self.size];
        self.world.all_gather_into(mine, &mut out[..]);
        out
    }

    /// The element-wise sum of every rank's `mine`, on every rank.
    pub fn all_sum(&self, mine: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; mine.len()];
        self.world
            .all_reduce_into(mine, &mut out[..], SystemOperation::sum());
        out
    }

    /// Every rank's bytes, in rank order.
    pub fn all_gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        let mut counts = vec![0 as Count; self.size];
        self.world
            .all_gather_into(&count(mine.len()), &mut counts[..]);
        let displs = displacements(&counts);
        let mut buf = buffer(counts.iter().map(|&c| c as usize).sum());
        let mine = padded(mine);
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            self.world
                .all_gather_varcount_into(&mine[..mine.len() - 1], &mut part);
        }
        split(&buf, &counts)
    }

    /// Sends `send[to]` to each rank `to`; returns what each rank sent here.
    pub fn all_to_all_bytes(&self, send: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let scounts: Vec<Count> = send.iter().map(|v| count(v.len())).collect();
        let mut rcounts = vec![0 as Count; self.size];
        self.world.all_to_all_into(&scounts[..], &mut rcounts[..]);
        let sbuf = padded(&send.concat());
        let sdispls = displacements(&scounts);
        let rdispls = displacements(&rcounts);
        let mut rbuf = buffer(rcounts.iter().map(|&c| c as usize).sum());
        {
            let spart = Partition::new(&sbuf[..], &scounts[..], &sdispls[..]);
            let mut rpart = PartitionMut::new(&mut rbuf[..], &rcounts[..], &rdispls[..]);
            self.world.all_to_all_varcount_into(&spart, &mut rpart);
        }
        split(&rbuf, &rcounts)
    }

    /// Every rank's `mine`, in rank order.
    pub fn all_gather_obj<T: Serialize + DeserializeOwned>(&self, mine: &T) -> Vec<T> {
        self.all_gather_bytes(&encode(mine))
            .iter()
            .map(|b| decode(b))
            .collect()
    }
}

/// `v` on the wire.
pub fn encode<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    postcard::to_allocvec(v).expect("simulator records encode")
}

/// What [`encode`] made (on a rank of the same binary).
pub fn decode<T: DeserializeOwned>(b: &[u8]) -> T {
    postcard::from_bytes(b).expect("a rank of the same binary encoded it")
}
