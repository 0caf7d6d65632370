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

    // ---- P-PFC (TPDS'20) ----
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
