//! Small built-in topologies used by the core scenarios and tests.
//!
//! ```text
//! star(n):                  dumbbell(l, r):
//!   h0  h1 ... h(n-1)         h0 ..           .. h(l)
//!     \  |   /                    \          /
//!      switch(n)                  S(l+r) -- S(l+r+1)
//!                                 /          \
//!                             h(l-1)          h(l+r-1)
//! ```
//! Hosts come first (ids 0..), then switches, like the HPCC ns-3 incast files.

use super::{NodeKind, TopologySpec};
use crate::units::{Delta, Rate};

/// `hosts` hosts around one switch; every link has `rate` and `delay`.
pub fn star(hosts: u32, rate: Rate, delay: Delta) -> TopologySpec {
    let mut t = TopologySpec::default();
    let hs: Vec<_> = (0..hosts).map(|_| t.add_node(NodeKind::Host)).collect();
    let sw = t.add_node(NodeKind::Switch);
    for h in hs {
        t.add_link(h, sw, rate, delay);
    }
    t
}

/// `left` and `right` hosts on two switches joined by one bottleneck link.
pub fn dumbbell(
    left: u32,
    right: u32,
    host_rate: Rate,
    bottleneck_rate: Rate,
    delay: Delta,
) -> TopologySpec {
    let mut t = TopologySpec::default();
    let hs: Vec<_> = (0..left + right)
        .map(|_| t.add_node(NodeKind::Host))
        .collect();
    let sl = t.add_node(NodeKind::Switch);
    let sr = t.add_node(NodeKind::Switch);
    for (i, h) in hs.into_iter().enumerate() {
        let sw = if (i as u32) < left { sl } else { sr };
        t.add_link(h, sw, host_rate, delay);
    }
    t.add_link(sl, sr, bottleneck_rate, delay);
    t
}
