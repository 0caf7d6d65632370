//! The parallel engine (docs/parallel.md): the nodes placed in partitions
//! ([`placement`]), a window of events per partition on threads ([`crew`],
//! [`windows`]) or on MPI ranks ([`distributed`], [`ranks`], [`wire`]), and
//! the exchange of the packets that crossed between them. Every `mpi`
//! feature gate of the dispatcher is in this folder.

pub(super) mod crew;
#[cfg(feature = "mpi")]
pub(super) mod distributed;
pub mod placement;
#[cfg(feature = "mpi")]
pub(super) mod ranks;
mod windows;
#[cfg(feature = "mpi")]
mod wire;
