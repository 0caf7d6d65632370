//! queue.csv: the bytes queued at each watched port (`output.queue_ports`)
//! every `output.queue_interval`, from the first flow's start; kept in memory
//! too for library runs that ask ([`crate::output::RunOutputs::samples`]).
//! queue.csv exists in every run directory, with its header when sampling is
//! off.

use super::{Before, FabricView, Finished, Ledger, Observer, Setup, Volume};
use crate::error::Error;
use crate::output::{Kind, Table, TableFile, push_ns};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use std::io::Write;

/// queue.csv's columns.
pub const TABLE: Table = Table {
    stem: "queue",
    columns: &[
        ("time_ns", Kind::Float),
        ("node", Kind::Int),
        ("port", Kind::Int),
        ("bytes", Kind::Int),
    ],
};

/// Bytes a row of queue.csv takes at least (`t,n,p,b` and a newline).
const ROW_MIN_BYTES: u64 = 8;

/// One queue-length sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSample {
    pub time: SimTime,
    pub node: u32,
    pub port: u16,
    pub bytes: u64,
}

/// The queue-length sampler.
pub struct QueueLengths {
    /// The sampling interval; none when sampling is off.
    interval: Option<Delta>,
    start: SimTime,
    ports: Vec<(NodeId, u16)>,
    file: Option<TableFile>,
    rows: QueueRows,
    /// Samples kept in memory, if asked.
    samples: Option<Vec<QueueSample>>,
}

impl Observer for QueueLengths {
    fn files() -> &'static [&'static str] {
        &["queue.csv"]
    }

    fn all_on() -> Option<&'static str> {
        Some("output.queue_interval=\"10us\"")
    }

    fn least_output(run: &Before<'_>) -> Option<Volume> {
        let iv = run.plan.queue_interval?;
        run.per_port("output.queue_interval", "queue.csv", iv, ROW_MIN_BYTES)
    }

    fn build(s: &Setup<'_>) -> Result<Option<Self>, Error> {
        let ports = s.watched_ports();
        Ok(Some(QueueLengths {
            interval: s.run.plan.queue_interval.filter(|_| !ports.is_empty()),
            start: s.start(),
            ports,
            file: s.table(&TABLE)?,
            rows: QueueRows::default(),
            samples: s.keep_samples.then(Vec::new),
        }))
    }

    fn first(&self) -> Option<SimTime> {
        self.interval.map(|_| self.start)
    }

    /// queue.csv gets a row per port, written at once: the time is
    /// formatted once for all of them, and each port's `,node,port,` once
    /// for the run ([`QueueRows`]).
    fn sample(
        &mut self,
        now: SimTime,
        view: &dyn FabricView,
        ledger: &mut Ledger,
    ) -> Option<SimTime> {
        let bytes = view.queued(&self.ports);
        self.record(now, &bytes, ledger);
        self.interval.map(|iv| now + iv)
    }

    fn written(&self) -> u64 {
        self.file.as_ref().map_or(0, TableFile::written)
    }

    fn finish(self: Box<Self>, out: &mut Finished) -> Result<(), Error> {
        out.files.extend(self.file);
        out.samples = self.samples.unwrap_or_default();
        Ok(())
    }
}

impl QueueLengths {
    /// `bytes[k]` queued at port `k` at `now`: the sample's rows are written
    /// only if they all fit the limit.
    fn record(&mut self, now: SimTime, bytes: &[u64], ledger: &mut Ledger) {
        if ledger.is_over() {
            return;
        }
        if let Some(f) = self.file.as_mut() {
            let rows = self.rows.write(now, &self.ports, bytes);
            if !ledger.fits(f.written() + rows.len() as u64) {
                return;
            }
            let res = f.write_all(rows).map_err(|e| f.err(e));
            ledger.note(res);
        }
        if let Some(samples) = self.samples.as_mut() {
            let rows = self.ports.iter().zip(bytes);
            samples.extend(rows.map(|(&(node, port), &bytes)| QueueSample {
                time: now,
                node: node.0,
                port,
                bytes,
            }));
        }
    }
}

/// queue.csv's rows (`time_ns,node,port,bytes`), a sample's at a time. The
/// ports of a run's samples are the same every time, in the same order, so
/// each one's `,node,port,` is formatted once and kept; a row is then the
/// sample's time, that text and the bytes. (On `incast-16to1-hpcc`, whose 17
/// ports are sampled every microsecond, formatting every field of every row
/// took a tenth of the run's instructions.)
#[derive(Default)]
struct QueueRows {
    /// The rows of the last sample (reused).
    out: Vec<u8>,
    /// The ports whose middles are kept, in sample order.
    ports: Vec<(NodeId, u16)>,
    /// Their `,node,port,` texts, one after the other; port `k`'s ends at
    /// `ends[k]`.
    text: Vec<u8>,
    ends: Vec<usize>,
}

impl QueueRows {
    /// The rows of one sample: `bytes[k]` queued at `ports[k]` at `now`.
    fn write(&mut self, now: SimTime, ports: &[(NodeId, u16)], bytes: &[u64]) -> &[u8] {
        debug_assert_eq!(ports.len(), bytes.len());
        if self.ports != ports {
            self.keep(ports);
        }
        let out = &mut self.out;
        out.clear();
        push_ns(out, now.ps());
        let time = out.len();
        let mut b = itoa::Buffer::new();
        let mut start = 0;
        for (k, (&end, &q)) in self.ends.iter().zip(bytes).enumerate() {
            if k > 0 {
                out.extend_from_within(..time);
            }
            out.extend_from_slice(&self.text[start..end]);
            out.extend_from_slice(b.format(q).as_bytes());
            out.push(b'\n');
            start = end;
        }
        out
    }

    fn keep(&mut self, ports: &[(NodeId, u16)]) {
        let mut b = itoa::Buffer::new();
        self.ports = ports.to_vec();
        self.text.clear();
        self.ends.clear();
        for &(node, port) in ports {
            self.text.push(b',');
            self.text.extend_from_slice(b.format(node.0).as_bytes());
            self.text.push(b',');
            self.text.extend_from_slice(b.format(port).as_bytes());
            self.text.push(b',');
            self.ends.push(self.text.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::fmt_ns;

    /// One queue.csv row: `time_ns,node,port,bytes`.
    fn queue_row(now: SimTime, node: NodeId, port: u16, bytes: u64) -> String {
        let mut rows = QueueRows::default();
        String::from_utf8(rows.write(now, &[(node, port)], &[bytes]).to_vec()).expect("ASCII")
    }

    /// A sample's rows carry its time on every row and each port's own
    /// node, port and bytes, in the order given; a sample of other ports (or
    /// of the same ports in another order) gets theirs, not the last list's.
    #[test]
    fn a_samples_rows_name_each_port_and_repeat_the_time() {
        let mut rows = QueueRows::default();
        let a = [(NodeId(17), 0), (NodeId(17), 16), (NodeId(320), 3)];
        let out = rows.write(SimTime(1_500), &a, &[0, 2_048, 7]);
        let want = "1.500,17,0,0\n1.500,17,16,2048\n1.500,320,3,7\n";
        assert_eq!(std::str::from_utf8(out).unwrap(), want);
        let out = rows.write(SimTime(2_000), &a, &[1, 0, 0]);
        let want = "2,17,0,1\n2,17,16,0\n2,320,3,0\n";
        assert_eq!(std::str::from_utf8(out).unwrap(), want);
        let b = [(NodeId(320), 3), (NodeId(5), 65_535)];
        let out = rows.write(SimTime(2_001), &b, &[9, u64::MAX]);
        let want = format!("2.001,320,3,9\n2.001,5,65535,{}\n", u64::MAX);
        assert_eq!(std::str::from_utf8(out).unwrap(), want);
    }

    /// The queue.csv row writer gives the bytes `fmt` gives, on the edges of
    /// the fraction (none, leading zeros, three digits) and the integer widths;
    /// `fmt_ns` is the same time.
    #[test]
    fn queue_rows_are_what_fmt_writes() {
        for ps in [
            0,
            1,
            9,
            10,
            999,
            1_000,
            1_001,
            1_010,
            154_000,
            123_456_789,
            u64::MAX,
        ] {
            for (node, port, bytes) in [(0, 0, 0), (320, 7, 1_048), (u32::MAX, u16::MAX, u64::MAX)]
            {
                let row = queue_row(SimTime(ps), NodeId(node), port, bytes);
                let time = if ps.is_multiple_of(1000) {
                    format!("{}", ps / 1000)
                } else {
                    format!("{}.{:03}", ps / 1000, ps % 1000)
                };
                assert_eq!(fmt_ns(ps), time);
                let want = format!("{time},{node},{port},{bytes}\n");
                assert_eq!(row, want);
            }
        }
    }
}
