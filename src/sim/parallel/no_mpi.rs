//! MPI ranks in a build without MPI: a type with no values, so that the
//! dispatcher's code for ranks (gathering the samplers' view, the deadlock
//! search's pause state, the partitions' ends) compiles, unreachable, in
//! every build, with no feature gate outside this folder.

use crate::error::Error;
use crate::sim::RunOptions;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The MPI ranks of a run: none in this build.
pub(crate) enum Ranks {}

impl Ranks {
    pub fn rank(&self) -> usize {
        match *self {}
    }

    pub fn size(&self) -> usize {
        match *self {}
    }

    pub fn all_sum(&self, _mine: &[u64]) -> Vec<u64> {
        match *self {}
    }

    pub fn all_gather_obj<T: Serialize + DeserializeOwned>(&self, _mine: &T) -> Vec<T> {
        match *self {}
    }
}

/// `--mpi` in a build without MPI: an error saying how to build with it.
pub(in crate::sim) fn join(opts: &RunOptions) -> Result<Option<Ranks>, Error> {
    match opts.mpi {
        true => Err(Error::Sim(crate::sim::NO_MPI.into())),
        false => Ok(None),
    }
}
