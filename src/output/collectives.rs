//! collectives.csv, steps.csv and summary.json's jobs: when each collective
//! of each job's iterations ran, and its bandwidth as nccl-tests reports it
//! (docs/ai-workloads.md, "Outputs").
//!
//! A collective starts with the first of its tasks to start (its first send,
//! or a reduction) and ends with the last to be done (a send's last ACK, a
//! receive's last byte, a reduction), over all its ranks. Algorithm
//! bandwidth is its size over that time; bus bandwidth the algorithm
//! bandwidth times the operation's factor (nccl-tests doc/PERFORMANCE.md:
//! all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
//! broadcast 1), in GB/s of 10^9 bytes as nccl-tests prints them and in Gbit/s
//! to set beside link rates.

use super::{AtomicFile, fmt_ns};
use crate::error::Error;
use crate::units::SimTime;
use crate::workload::program::Programs;
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// One row of collectives.csv.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollectiveRow {
    /// The job's index (its place in the scenario) and name.
    pub job_index: u32,
    pub job: String,
    pub iteration: u32,
    pub collective: u32,
    pub op: String,
    pub algorithm: String,
    pub ranks: u32,
    pub size: u64,
    pub start: SimTime,
    pub end: SimTime,
    /// Since the end of the job's previous iteration (its start for the first).
    pub iteration_ps: u64,
    pub algbw_gbyte_s: f64,
    pub busbw_gbyte_s: f64,
}

impl CollectiveRow {
    pub fn duration_ps(&self) -> u64 {
        self.end.ps().saturating_sub(self.start.ps())
    }

    /// Bus bandwidth in Gbit/s.
    pub fn busbw_gbps(&self) -> f64 {
        self.busbw_gbyte_s * 8.0
    }
}

/// A job's line in summary.json.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSummary {
    pub name: String,
    pub iterations: u32,
    /// Iterations whose collectives all completed.
    pub iterations_done: u32,
    pub start_ns: f64,
    pub end_ns: f64,
    /// Job completion time: from its start to the end of its last collective.
    pub jct_ns: f64,
    /// The mean time of its iterations (jct / iterations done).
    pub iteration_ns_mean: f64,
    /// The mean bus bandwidth of its collectives, GB/s (10^9 bytes).
    pub busbw_gbyte_s_mean: f64,
}

/// What the run's tasks reported.
#[derive(Clone, Debug)]
pub struct CollectiveLog {
    programs: Arc<Programs>,
    /// Per instance: first start, last end, tasks done.
    spans: Vec<Span>,
    /// Per instance: its steps' spans.
    steps: Vec<Vec<Span>>,
    /// Tasks each instance has.
    tasks: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Span {
    start: SimTime,
    end: SimTime,
    done: u32,
}

impl Default for Span {
    fn default() -> Span {
        Span {
            start: SimTime::MAX,
            end: SimTime::ZERO,
            done: 0,
        }
    }
}

impl Span {
    fn add(&mut self, start: SimTime, end: SimTime) {
        self.start = self.start.min(start);
        self.end = self.end.max(end);
        self.done += 1;
    }
}

impl CollectiveLog {
    pub fn new(programs: Arc<Programs>) -> CollectiveLog {
        let n = programs.instances.len();
        let mut tasks = vec![0u32; n];
        let mut steps = vec![Vec::new(); n];
        for t in 0..programs.len() as u32 {
            let tag = programs.tag(t);
            if let Some(c) = tasks.get_mut(tag.instance as usize) {
                *c += 1;
                let s: &mut Vec<Span> = &mut steps[tag.instance as usize];
                if s.len() <= tag.step as usize {
                    s.resize(tag.step as usize + 1, Span::default());
                }
            }
        }
        CollectiveLog {
            spans: vec![Span::default(); n],
            steps,
            tasks,
            programs,
        }
    }

    /// Task `task`, started at `start`, was done at `now`.
    pub fn task_done(&mut self, now: SimTime, task: u32, start: SimTime) {
        let tag = self.programs.tag(task);
        if let Some(s) = self.spans.get_mut(tag.instance as usize) {
            s.add(start, now);
            self.steps[tag.instance as usize][tag.step as usize].add(start, now);
        }
    }

    /// The collectives that completed, by job, iteration and place.
    pub fn rows(&self) -> Vec<CollectiveRow> {
        let p = &self.programs;
        let mut prev_end: Vec<SimTime> = p.jobs.iter().map(|j| j.start).collect();
        let mut rows = Vec::new();
        for (i, inst) in p.instances.iter().enumerate() {
            let s = self.spans[i];
            if self.tasks[i] == 0 || s.done < self.tasks[i] {
                continue;
            }
            let secs = s.end.ps().saturating_sub(s.start.ps()) as f64 / 1e12;
            let algbw = if secs > 0.0 {
                inst.size as f64 / secs / 1e9
            } else {
                0.0
            };
            let before = &mut prev_end[inst.job as usize];
            let iteration_ps = s.end.ps().saturating_sub(before.ps());
            *before = s.end;
            rows.push(CollectiveRow {
                job_index: inst.job,
                job: p.jobs[inst.job as usize].name.clone(),
                iteration: inst.iteration,
                collective: inst.index,
                op: inst.op.clone(),
                algorithm: inst.algorithm.clone(),
                ranks: inst.ranks,
                size: inst.size,
                start: s.start,
                end: s.end,
                iteration_ps,
                algbw_gbyte_s: algbw,
                busbw_gbyte_s: algbw * inst.busbw_factor,
            });
        }
        rows
    }

    /// summary.json's jobs.
    pub fn jobs(&self) -> Vec<JobSummary> {
        let rows = self.rows();
        let p = &self.programs;
        (p.jobs.iter().enumerate())
            .map(|(j, job)| {
                let mine: Vec<&CollectiveRow> =
                    rows.iter().filter(|r| r.job_index as usize == j).collect();
                let end = mine.iter().map(|r| r.end).max().unwrap_or(job.start);
                let done = mine.iter().map(|r| r.iteration + 1).max().unwrap_or(0);
                let jct = end.ps().saturating_sub(job.start.ps()) as f64 / 1e3;
                let bw: f64 = mine.iter().map(|r| r.busbw_gbyte_s).sum();
                JobSummary {
                    name: job.name.clone(),
                    iterations: job.iterations,
                    iterations_done: done,
                    start_ns: job.start.ps() as f64 / 1e3,
                    end_ns: end.ps() as f64 / 1e3,
                    jct_ns: jct,
                    iteration_ns_mean: if done > 0 { jct / done as f64 } else { 0.0 },
                    busbw_gbyte_s_mean: if mine.is_empty() {
                        0.0
                    } else {
                        bw / mine.len() as f64
                    },
                }
            })
            .collect()
    }

    /// collectives.csv and steps.csv in `dir`.
    pub fn files(&self, dir: &Path) -> Result<Vec<AtomicFile>, Error> {
        let mut c = AtomicFile::create(dir, "collectives.csv")?;
        writeln!(
            c,
            "job,iteration,collective,op,algorithm,ranks,size_bytes,start_ns,end_ns,duration_ns,iteration_ns,algbw_GBps,busbw_GBps,busbw_gbps"
        )
        .map_err(|e| c.err(e))?;
        for r in self.rows() {
            writeln!(
                c,
                "{},{},{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6}",
                r.job,
                r.iteration,
                r.collective,
                r.op,
                r.algorithm,
                r.ranks,
                r.size,
                fmt_ns(r.start.ps()),
                fmt_ns(r.end.ps()),
                fmt_ns(r.duration_ps()),
                fmt_ns(r.iteration_ps),
                r.algbw_gbyte_s,
                r.busbw_gbyte_s,
                r.busbw_gbps(),
            )
            .map_err(|e| c.err(e))?;
        }
        let mut s = AtomicFile::create(dir, "steps.csv")?;
        writeln!(
            s,
            "job,iteration,collective,step,start_ns,end_ns,duration_ns"
        )
        .map_err(|e| s.err(e))?;
        let p = &self.programs;
        for (i, inst) in p.instances.iter().enumerate() {
            for (k, st) in self.steps[i].iter().enumerate() {
                if st.done == 0 {
                    continue;
                }
                writeln!(
                    s,
                    "{},{},{},{},{},{},{}",
                    p.jobs[inst.job as usize].name,
                    inst.iteration,
                    inst.index,
                    k,
                    fmt_ns(st.start.ps()),
                    fmt_ns(st.end.ps()),
                    fmt_ns(st.end.ps().saturating_sub(st.start.ps())),
                )
                .map_err(|e| s.err(e))?;
            }
        }
        Ok(vec![c, s])
    }
}
