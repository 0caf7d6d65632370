//! The papers' sentences that explain where our results differ from theirs, each
//! quoted verbatim with its section (a test checks every one against the papers'
//! text in ../shared/papers when that folder is present).
//!
//! A quote belongs here when the paper itself accounts for the difference: it
//! states a setting or a measurement we cannot copy (hardware, run length, a
//! trace it does not publish), or leaves open what decides the number. A
//! difference that comes from a choice of ours is not explained by a quote: fix
//! the choice, or let the row count as unexplained.

use super::Quote;

macro_rules! quotes {
    ($($(#[$doc:meta])* $name:ident = ($paper:literal, $section:literal, $text:literal);)*) => {
        $( $(#[$doc])* pub const $name: Quote = Quote::new($section, $text); )*
        /// Every quote, with the paper it is from ("hpcc", "dcqcn", "rcc", "ppfc").
        pub const ALL: &[(&str, Quote)] = &[$(($paper, $name)),*];
    };
}

quotes! {
    // ---- HPCC (SIGCOMM'19) ----
    /// The testbed's DCQCN is a vendor's, of which the paper names two timers only.
    HPCC_VENDOR_TIMERS = ("hpcc", "§2.3", "$T_i = 300\\mu s$ ,  $T_d = 4\\mu s$  is a vendor’s default");

    // ---- DCQCN (SIGCOMM'15) ----
    /// The benchmark traffic's runs last two minutes; ours tens of milliseconds.
    DCQCN_TWO_MINUTES = ("dcqcn", "§6.2", "Each run lasts for two minutes.");
    /// PFC shares a congested port among its ingress ports, per port: a port that
    /// carries one flow gives it as much as H4 gets.
    DCQCN_PORT_SHARES = (
        "dcqcn",
        "§2.2",
        "However, P2 carries just one flow (from H4), while P3 and P4 may carry multiple flows since H1, H2 and H3 must share these two ports, depending on how ECMP maps the flows."
    );
    /// RED-like marking makes a flow's throughput wander.
    DCQCN_RED_UNSTABLE = (
        "dcqcn",
        "§6.1",
        "However, we see a drawback that isn’t shown by fluid model: the throughput is unstable due to the randomness in marking."
    );
    /// The benchmark's user traffic is a number of pairs of an unpublished
    /// trace, not a load; the incast's share of the receiver and of the fabric
    /// depends on that load.
    DCQCN_USER_PAIRS = (
        "dcqcn",
        "§6.2",
        "The number of communicating pairs is fixed at 20 (we will vary this in a later experiment)."
    );
    /// The NIC's loss recovery is named but not its timers or retry limits,
    /// which decide whether and how fast a flow recovers from losses.
    DCQCN_GO_BACK_N = (
        "dcqcn",
        "§7",
        "The ConnectX-3 Pro implements a simple go-back-N loss recovery scheme."
    );
    /// Fig. 18's lossy configuration: PFC off, and no word on the buffer limit a
    /// lossy queue then has, which decides whether the incast drops at all.
    DCQCN_PFC_DISABLED = (
        "dcqcn",
        "§6.2",
        "First, we disable PFC entirely, although we do use DCQCN."
    );
    /// The paper's measurements are of its NICs' firmware, whose details
    /// beyond the algorithm it does not give.
    DCQCN_CX3_PRO = (
        "dcqcn",
        "§6",
        "We now evaluate the performance of DCQCN in a variety of settings, using Mellanox ConnectX-3 Pro NICs."
    );
    /// Fig. 17's user traffic is again a number of pairs, not a load.
    DCQCN_PAIRS_5_TO_80 = (
        "dcqcn",
        "§6.2",
        "Now, we hold the degree of incast constant at 10, and vary the amount of use traffic by varying the number of simultaneously communicating pairs from 5 to 80."
    );

    // ---- RCC (ToN'23) ----
    /// Every connection starts at line rate: 1000 simultaneous ones burst.
    RCC_LINE_RATE_START = ("rcc", "§III-C", "Besides, each connection starts at line rate.");
    /// The comparators' numbers come from others' code, whose parameters the
    /// paper does not list (only that it used "the parameters suggested").
    RCC_COMPARATOR_CODE = ("rcc", "§V-A", "We use the open-source code of DCQCN [47], Homa [48] and HPCC");
    /// Table II's setup: the senders and their bytes, but no topology and no
    /// PFC threshold, which decide at which N a burst no CC can act on within
    /// its first round trip starts to pause.
    RCC_INCAST_SETUP = ("rcc", "§V-D4", "Setup: To quantify the superior performance of RCC in preventing PFC activation, we conduct a series of N-to-1 Incast scenarios with each sender sends 200KB data.");

    /// The paper credits the derivative term with equalising PID windows, which
    /// Eq. (4)-(5) as written do not do for flows with the same delay error.
    RCC_DERIVATIVE_FAIRNESS = ("rcc", "§III-E", "Due to the derivative term in (4), the increment of window size will gradually decrease as the window becomes larger, eliminating the unfairness caused by pure MIMD algorithms.");

    // ---- P-PFC (TPDS'20) ----
    /// The pause follows the queue's drain, not each port's bytes: the worked
    /// example that fixes our reading of Alg. 3's `Transmission_speed`, against
    /// §4.4's and §5.4's wording that a port with more bytes is paused longer.
    PPFC_DRAIN_RATE = ("ppfc", "§2.3", "The pause duration can be calculated by the expected buffer draining rate when $X/Y$ are paused. In this case, the pause is set to be 2 time units as shown in Fig. 2c.");
    /// CaPFC's per-input threshold (and WARN) are not given: what they are set
    /// to decides how far CaPFC holds the queue.
    PPFC_CAPFC_THRESHOLD = ("ppfc", "§7", "CaPFC monitors both ingress and egress queues, and triggers PFC with a fixed threshold value of per-input counters.");
    /// Fig. 10's fixed pause times are not listed.
    PPFC_FIXED_PAUSES = ("ppfc", "§5.4", "As shown in Fig. 10, we compare using dynamical pause time and several fixed pause time");
    /// The testbeds of Figs. 11, 12 and 15 are given without their traffic.
    PPFC_TESTBEDS = ("ppfc", "§5.5", "For both topologies, each server is connected via a 10 Gbps link, and the oversubscription ratio are 8:1 and 16:1 respectively.");
    /// Fig. 18's topology and load are not given, only the flow sizes' trace.
    PPFC_DATAMINING_TRACE = ("ppfc", "§5.7", "We use data mining trace whose cumulative distribution functions and descriptions can be found in [27].");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Whitespace runs as one space, so line breaks in the paper do not matter.
    fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn every_quote_is_in_its_paper_word_for_word() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/papers");
        let file = |paper: &str| match paper {
            "hpcc" => "hpcc-sigcomm2019.md",
            "dcqcn" => "dcqcn-sigcomm2015.md",
            "rcc" => "rcc-ton2023.md",
            "ppfc" => "ppfc-tpds2020.md",
            _ => panic!("unknown paper {paper}"),
        };
        if !dir.is_dir() {
            // A clone without the shared folder (CI): the texts were checked
            // where the papers are.
            eprintln!("{} absent: quotes not checked", dir.display());
            return;
        }
        for (paper, q) in ALL {
            let text = std::fs::read_to_string(dir.join(file(paper))).unwrap();
            assert!(
                squash(&text).contains(&squash(q.text)),
                "{paper} {}: \"{}\" is not in the paper",
                q.section,
                q.text
            );
        }
    }
}
