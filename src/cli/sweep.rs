//! `rocesim sweep`: run a sweep locally, one point of it, write a Slurm job
//! array for it, or collect its points (docs/sweeps.md).

use crate::error::{Error, InputError};
use crate::sweep::{self, SweepOptions, slurm};
use clap::Subcommand;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub cmd: Option<SweepCmd>,
    /// Sweep file (TOML): a base scenario and axes or points (docs/sweeps.md).
    #[arg(required = true)]
    pub sweep: Option<PathBuf>,
    /// Sweep directory (default: runs/<sweep file stem>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Points run in parallel (default: the number of cores).
    #[arg(long, conflicts_with_all = ["point", "collect", "slurm"])]
    pub jobs: Option<usize>,
    /// Run only point K (0-based, as listed in sweep.json): what a Slurm array
    /// task runs. Writes only OUT/<point id>/.
    #[arg(long, value_name = "K", conflicts_with_all = ["collect", "slurm"])]
    pub point: Option<usize>,
    /// Run nothing: merge the point directories into sweep.csv and sweep.json
    /// (as `rocesim sweep collect DIR`).
    #[arg(long, conflicts_with = "slurm")]
    pub collect: bool,
    /// Write OUT/sweep.sbatch, a Slurm job array with one task per point.
    #[arg(long)]
    pub slurm: bool,
    /// With --slurm: the partition.
    #[arg(long, requires = "slurm")]
    pub partition: Option<String>,
    /// With --slurm: time limit per point, as sbatch reads it (e.g. 30, 1:00:00).
    #[arg(long, requires = "slurm")]
    pub time: Option<String>,
    /// With --slurm: CPUs per task.
    #[arg(long, requires = "slurm")]
    pub cpus_per_task: Option<u32>,
    /// With --slurm: submit the script with sbatch and print the job id.
    #[arg(long, requires = "slurm")]
    pub submit: bool,
    /// No progress bar and no per-point lines.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Subcommand, Debug)]
pub enum SweepCmd {
    /// Merge a sweep directory's points into sweep.csv and sweep.json and say
    /// which are missing or failed (exit code 1 if any).
    Collect {
        /// A directory written by `rocesim sweep` or prepared by `--slurm`.
        dir: PathBuf,
    },
}

pub fn sweep(a: &SweepArgs) -> Result<(), Error> {
    if let Some(SweepCmd::Collect { dir }) = &a.cmd {
        let file = sweep::read_plan(dir)?;
        let spec = sweep::load_sweep_file(&file)?;
        return collect(&spec, dir);
    }
    let path = a
        .sweep
        .as_ref()
        .expect("clap requires SWEEP without a subcommand");
    let spec = sweep::load_sweep_file(path)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(&spec.stem));
    if a.collect {
        return collect(&spec, &out);
    }
    if let Some(k) = a.point {
        let r = sweep::run_point(&spec, k, &out)?;
        return match r.status {
            sweep::PointStatus::Ok => {
                if !a.quiet {
                    println!("{}: ok ({})", r.id, r.dir.display());
                }
                Ok(())
            }
            sweep::PointStatus::Failed(e) | sweep::PointStatus::Missing(e) => {
                Err(Error::Sim(format!("point {k} ({}) failed: {e}", r.id)))
            }
        };
    }
    if a.slurm {
        let o = slurm::SlurmOptions {
            partition: a.partition.clone(),
            time: a.time.clone(),
            cpus_per_task: a.cpus_per_task,
        };
        let script = slurm::write_script(&spec, &out, &o)?;
        let n = spec.points.len();
        if n > slurm::DEFAULT_MAX_ARRAY_SIZE {
            eprintln!(
                "warning: {}: {n} points make {n} array tasks (0-{}); Slurm's default \
                 MaxArraySize is {} (0-{}): sbatch refuses more unless the cluster raises it \
                 (scontrol show config | grep MaxArraySize); else split the sweep into files \
                 of at most {} points",
                spec.path.display(),
                n - 1,
                slurm::DEFAULT_MAX_ARRAY_SIZE,
                slurm::DEFAULT_MAX_ARRAY_SIZE - 1,
                slurm::DEFAULT_MAX_ARRAY_SIZE
            );
        }
        let dir = script.parent().unwrap_or(&out).display().to_string();
        if a.submit {
            let id = slurm::submit(&script)?;
            println!(
                "submitted job {id}: {} array tasks ({} points)",
                spec.points.len(),
                spec.points.len()
            );
            println!("when it is done: rocesim sweep collect {dir}");
        } else {
            println!(
                "wrote {} ({} array tasks)\nsubmit:  sbatch {}\nthen:    rocesim sweep collect {dir}",
                script.display(),
                spec.points.len(),
                script.display()
            );
        }
        return Ok(());
    }
    if a.jobs == Some(0) {
        return Err(InputError::new("--jobs", "", "must be at least 1").into());
    }
    let opts = SweepOptions {
        out,
        jobs: a.jobs.unwrap_or_else(crate::reproduce::default_jobs),
        progress: !a.quiet,
    };
    if !a.quiet {
        eprintln!(
            "{}: {} points, {} at a time, into {}",
            spec.path.display(),
            spec.points.len(),
            opts.jobs.min(spec.points.len()),
            opts.out.display()
        );
    }
    let r = sweep::run_sweep(&spec, &opts)?;
    if !a.quiet {
        super::print_out(&r.describe());
    }
    r.check()
}

fn collect(spec: &sweep::SweepSpec, dir: &std::path::Path) -> Result<(), Error> {
    if !dir.is_dir() {
        return Err(InputError::in_file(dir, "", "no such sweep directory").into());
    }
    let r = sweep::collect(spec, dir)?;
    super::print_out(&r.describe());
    r.check()
}
