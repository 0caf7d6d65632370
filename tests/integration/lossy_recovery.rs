//! Loss recovery without PFC (HPCC §5.3 Fig. 12): IRN's selective retransmission
//! against go-back-N (and go-back-0) under the same buffer overflows.

use crate::common::{assert_all_delivered, run};
use std::path::Path;

fn lossy(recovery: &str) -> rocesim::output::RunOutputs {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/lossy-gbn-incast.toml");
    let text = std::fs::read_to_string(p).unwrap();
    let set = format!("nic.loss_recovery=\"{recovery}\"");
    let out = run(&text, &[&set, "output.queue_interval=\"0s\""]);
    assert_all_delivered(&out);
    out
}

fn max_fct_ns(out: &rocesim::output::RunOutputs) -> f64 {
    out.fct
        .iter()
        .map(|f| f.fct.as_ns_f64())
        .fold(0.0, f64::max)
}

#[test]
fn irn_retransmits_exactly_the_lost_packets_and_finishes_before_go_back_n() {
    let irn = lossy("irn");
    let gbn = lossy("go-back-n");
    let (si, sg) = (&irn.summary, &gbn.summary);
    assert!(
        si.drops_buffer > 0 && sg.drops_buffer > 0,
        "the buffer overflows"
    );
    assert_eq!(si.drops_link, 0);
    // Only data packets are dropped (control is class 0, never admitted to the
    // lossy pool), and IRN resends each lost one once.
    assert_eq!(si.retransmitted_packets, si.drops_buffer);
    assert_eq!(si.retransmitted_bytes, si.retransmitted_packets * 1000);
    // Go-back-N resends everything after each loss.
    assert!(sg.retransmitted_packets > sg.drops_buffer, "{sg:?}");
    assert!(max_fct_ns(&irn) < max_fct_ns(&gbn));
}

#[test]
fn go_back_0_restarts_messages_and_still_delivers_everything() {
    let g0 = lossy("go-back-0");
    assert!(g0.summary.retransmitted_packets >= g0.summary.drops_buffer);
    assert_eq!(g0.summary.delivered_bytes, 8 * 2_000_000);
}
