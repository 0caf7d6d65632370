//! The partitions' journals applied to the recorder and the PFC diagnostics,
//! in event-key order (the order one thread would have made them in).

use super::checks::Due;
use super::part::next_grid;
use super::{Shared, Sim};
use crate::engine::Key;
use crate::ids::SwitchIdx;
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
        let paused = file_note(
            key,
            note,
            &self.sh,
            &mut self.rec,
            &mut self.diag,
            &mut self.roots,
        );
        if let Some((si, port, class)) = paused
            && self.diag.candidate.is_none()
        {
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
    }
}

/// Applies one note made at `key` to the recorder and the diagnostics; a
/// flow's path not traced by its partition is traced here. Returns the
/// paused queue a note asks a deadlock search from, which only the
/// dispatcher can schedule ([`Sim::apply`]).
fn file_note(
    key: Key,
    note: Note,
    sh: &Shared,
    rec: &mut Recorder,
    diag: &mut PfcDiag,
    roots: &mut PauseRoots,
) -> Option<(SwitchIdx, u16, u8)> {
    match Journal::apply(note, SimTime(key.0), rec, diag, roots) {
        Applied::Done => None,
        Applied::FlowPath(fid) => {
            // PFC victims: the switch ingresses and egresses the flow, just
            // started, crosses (the diagnostics watch it until it completes).
            for &(ingress, egress) in &sh.flow_hops(fid)[..] {
                diag.flow_path(fid, ingress, egress);
            }
            None
        }
        Applied::Paused(si, port, class) => Some((si, port, class)),
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
        let paused = file_note(key, note, sh, rec, diag, roots);
        assert!(
            paused.is_none(),
            "notes asking for a search are applied at once"
        );
    }
}
