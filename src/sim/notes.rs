//! The partitions' journals applied to the recorder and the PFC diagnostics,
//! in event-key order (the order one thread would have made them in).

use super::checks::Due;
use super::part::next_grid;
use super::{Shared, Sim};
use crate::engine::Key;
use crate::ids::FlowId;
use crate::output::Recorder;
use crate::output::journal::{Applied, Journal, Note, PauseRoots};
use crate::output::pfc_diag::PfcDiag;
use crate::units::SimTime;

impl Sim {
    /// Takes the partitions' notes into `merging`, in key order.
    /// The sort is stable: notes of one event keep their order, and a key
    /// two partitions share (none do: an event's key names its node) would go
    /// by partition. A window's notes are few (flows started and completed,
    /// PFC events), so sorting them costs less than a merge that looks at
    /// every partition. Returns whether they may wait for the next window
    /// ([`file_notes`]): none asks for a deadlock search, which is due at the
    /// window's bound.
    pub(super) fn gather_notes(&mut self) -> bool {
        for p in &mut self.parts {
            self.merging.extend(p.journal.drain());
        }
        self.sort_gathered();
        !self
            .merging
            .iter()
            .any(|(_, n)| matches!(n, Note::Paused { .. }))
    }

    /// Sorts `merging` by key (see [`Sim::gather_notes`]).
    pub(super) fn sort_gathered(&mut self) {
        self.merging.sort_by_key(|&(k, _)| k);
    }

    /// Applies the notes [`Sim::gather_notes`] took, in their order.
    pub(super) fn apply_gathered(&mut self) {
        let mut notes = std::mem::take(&mut self.merging);
        for (key, note) in notes.drain(..) {
            self.apply(key, note);
        }
        self.merging = notes;
    }

    /// Applies one journal note made at `key`.
    pub(super) fn apply(&mut self, key: Key, note: Note) {
        let time = SimTime(key.0);
        match Journal::apply(note, time, &mut self.rec, &mut self.diag, &mut self.roots) {
            Applied::Done => {}
            Applied::FlowPath(fid) => self.note_flow_path(fid),
            Applied::Paused(si, port, class) if self.diag.candidate.is_none() => {
                // Searched at the next grid point, whatever the threads. (A
                // candidate changes only at the dispatcher's events, which end
                // windows: every thread count sees the same one here.) Pending
                // searches already have that point's event.
                if self.searches.is_empty() {
                    let at = SimTime(next_grid(key.0, self.grid));
                    self.gq.schedule_cold_lead(at, u32::MAX, Due::Deadlock);
                }
                self.searches.push((si, port, class));
            }
            Applied::Paused(..) => {}
        }
    }

    /// PFC victims: which switch ingresses and egresses flow `fid`, which has
    /// just started, crosses (the dispatcher's view of the routing; the
    /// diagnostics watch the flow from now until it completes).
    pub(super) fn note_flow_path(&mut self, fid: FlowId) {
        file_flow_path(&self.sh, &mut self.diag, fid);
    }
}

/// Flow `fid`'s path joins the victim lists.
fn file_flow_path(sh: &Shared, diag: &mut PfcDiag, fid: FlowId) {
    for &(ingress, egress) in &sh.flow_hops(fid)[..] {
        diag.flow_path(fid, ingress, egress);
    }
}

/// Applies a window's notes, gathered in key order by [`Sim::gather_notes`]
/// (which said they may wait), to the recorder and the diagnostics, and
/// empties `notes`: on the dispatcher's thread while the partitions run the
/// next window, whose events they cannot change (docs/parallel.md, "The
/// merge").
pub(super) fn file_notes(
    notes: &mut Vec<(Key, Note)>,
    sh: &Shared,
    rec: &mut Recorder,
    diag: &mut PfcDiag,
    roots: &mut PauseRoots,
) {
    for (key, note) in notes.drain(..) {
        match Journal::apply(note, SimTime(key.0), rec, diag, roots) {
            Applied::Done => {}
            Applied::FlowPath(fid) => file_flow_path(sh, diag, fid),
            Applied::Paused(..) => unreachable!("notes asking for a search are applied at once"),
        }
    }
}
