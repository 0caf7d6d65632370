//! The parallel engine (docs/parallel.md): the nodes placed in partitions
//! ([`placement`]), and one event loop ([`run`]) that drives them on threads
//! ([`threads`], [`crew`]) or on MPI ranks ([`distributed`], [`ranks`],
//! [`wire`]) through one trait ([`run::Partitions`]). Every `mpi` feature
//! gate of the dispatcher is in this folder: a build without MPI has an
//! empty [`Ranks`] (no value of it exists), so the dispatcher's code for
//! ranks compiles, unreachable, in every build.

pub(super) mod crew;
#[cfg(feature = "mpi")]
pub(super) mod distributed;
#[cfg(not(feature = "mpi"))]
mod no_mpi;
pub mod placement;
#[cfg(feature = "mpi")]
pub(super) mod ranks;
mod run;
mod threads;
// The wire format is built without MPI too, so that its tests run in every
// build; only the ranks use it.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
mod wire;

#[cfg(not(feature = "mpi"))]
pub(super) use no_mpi::{Ranks, join};
#[cfg(feature = "mpi")]
pub(super) use {distributed::join, ranks::Ranks};

use super::{Ending, Sim};
use crate::engine::Key;

impl Sim {
    /// Runs the partitions to the run's end on MPI ranks (a run on them) or
    /// on threads (several partitions); `None` for a run in one partition,
    /// which the sequential engine runs.
    pub(super) fn run_partitioned(
        &mut self,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        #[cfg(feature = "mpi")]
        if let Some(r) = self.ranks.clone() {
            let mut on = distributed::OnRanks::new(self, &r);
            return Some(self.run_parallel(&mut on, stop_bound, progress));
        }
        if self.parts.len() == 1 {
            return None;
        }
        Some(match threads::Threads::start(self) {
            Ok(mut t) => self.run_parallel(&mut t, stop_bound, progress),
            Err(e) => e,
        })
    }
}
