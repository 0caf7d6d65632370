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
    rank: usize,
    /// Ranks in the run (= partitions).
    size: usize,
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

/// What every rank sent this one, in one buffer.
pub(crate) struct Received {
    buf: Vec<u8>,
    counts: Vec<Count>,
    displs: Vec<Count>,
}

impl Received {
    /// Rank `i`'s bytes.
    pub fn from(&self, i: usize) -> &[u8] {
        let at = self.displs[i] as usize;
        &self.buf[at..at + self.counts[i] as usize]
    }
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

    /// This process's rank: it runs partition `rank`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Ranks in the run (= partitions).
    pub fn size(&self) -> usize {
        self.size
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

    /// Every rank's bytes, in rank order: `fill` writes this rank's.
    pub fn all_gather_bytes(&self, fill: impl FnOnce(&mut Vec<u8>)) -> Received {
        let mut mine = Vec::new();
        fill(&mut mine);
        let len = mine.len();
        mine.push(0);
        let mut counts = vec![0 as Count; self.size];
        self.world.all_gather_into(&count(len), &mut counts[..]);
        let displs = displacements(&counts);
        let mut buf = buffer(counts.iter().map(|&c| c as usize).sum());
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(&mine[..len], &mut part);
        }
        Received {
            buf,
            counts,
            displs,
        }
    }

    /// Sends each rank `to` the bytes `fill(to, buf)` appends (called for
    /// every rank in order); returns what each rank sent here.
    pub fn all_to_all_bytes(&self, mut fill: impl FnMut(usize, &mut Vec<u8>)) -> Received {
        let mut sbuf = Vec::new();
        let mut scounts = vec![0 as Count; self.size];
        for (to, c) in scounts.iter_mut().enumerate() {
            let at = sbuf.len();
            fill(to, &mut sbuf);
            *c = count(sbuf.len() - at);
        }
        sbuf.push(0);
        let mut rcounts = vec![0 as Count; self.size];
        self.world.all_to_all_into(&scounts[..], &mut rcounts[..]);
        let sdispls = displacements(&scounts);
        let rdispls = displacements(&rcounts);
        let mut rbuf = buffer(rcounts.iter().map(|&c| c as usize).sum());
        {
            let spart = Partition::new(&sbuf[..sbuf.len() - 1], &scounts[..], &sdispls[..]);
            let mut rpart = PartitionMut::new(&mut rbuf[..], &rcounts[..], &rdispls[..]);
            self.world.all_to_all_varcount_into(&spart, &mut rpart);
        }
        Received {
            buf: rbuf,
            counts: rcounts,
            displs: rdispls,
        }
    }

    /// Every rank's `mine`, in rank order.
    pub fn all_gather_obj<T: Serialize + DeserializeOwned>(&self, mine: &T) -> Vec<T> {
        let all = self.all_gather_bytes(|b| encode_into(mine, b));
        (0..self.size).map(|i| decode(all.from(i))).collect()
    }
}

/// Appends `v`, on the wire, to `buf`.
pub fn encode_into<T: Serialize + ?Sized>(v: &T, buf: &mut Vec<u8>) {
    *buf = postcard::to_extend(v, std::mem::take(buf)).expect("simulator records encode");
}

/// The first value [`encode_into`] put in `b`, and the bytes after it.
pub fn take<T: DeserializeOwned>(b: &[u8]) -> (T, &[u8]) {
    postcard::take_from_bytes(b).expect("a rank of the same binary encoded it")
}

/// What [`encode_into`] made (on a rank of the same binary).
pub fn decode<T: DeserializeOwned>(b: &[u8]) -> T {
    postcard::from_bytes(b).expect("a rank of the same binary encoded it")
}
