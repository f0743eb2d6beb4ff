//! ndnpy vs ndarray-npy 0.10 vs npyz 0.9 vs numpy vs the raw floor, in one run.
//!
//! Every case runs each implementation once per round, in an order that rotates from round
//! to round, after one untimed warm-up round that also checks every result. Tables report
//! medians. See README.md.

mod cases;
mod doors;
mod floors;
mod inflate;
mod into;
mod npz;
mod numpy;
mod ooc;
mod parquet;
mod process;
mod records;
mod region;
mod remote;
mod safetensors;
mod strings;

use cases::{ReadKind, WriteKind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub type Res<T> = Result<T, Box<dyn std::error::Error>>;

const CASES: [&str; 24] = [
    "read_c",
    "read_f",
    "read_be",
    "write_c",
    "write_f",
    "write_perm",
    "tiny",
    "mmap_sum",
    "view_create",
    "append",
    "rows",
    "strings",
    "npz_tiny",
    "npz_compress",
    "npz_decompress",
    "npz_parallel",
    "inflate",
    "records",
    "process",
    "remote",
    "region",
    "safetensors",
    "parquet",
    "into",
];

const USAGE: &str = "\
usage: ndnpy-benchmarks [options]
  --size-mib N     size of the large arrays in MiB (default 256; append and rows use 4x,
                   1024 MiB; strings and records use N * 4096 items; npz members N / 4 MiB)
  --rounds N       timed rounds for every case (default 7, tiny arrays 15)
  --tiny-count N   number of tiny arrays (default 10000)
  --rows N         rows of the parquet case's (N, 768) float16 input (default 1000000)
  --case NAME      run one case: read_c read_f read_be write_c write_f write_perm tiny region
                   mmap_sum view_create append rows strings npz_tiny npz_compress
                   npz_decompress npz_parallel inflate records process remote safetensors
                   parquet into
  --files N        number of (64, 128) f8 files the into case reads (default 100000)
  --quick          16 MiB and 3 rounds, fewer repetitions in view_create, 100000 rows in
                   parquet (explicit options still win)
  --dir PATH       directory for the files (default /tmp/ndnpy-bench)";

pub struct Config {
    pub size_mib: usize,
    pub rounds: usize,
    pub tiny_rounds: usize,
    pub tiny_count: usize,
    /// Rows of the `parquet` case's (rows, 768) float16 input.
    pub rows: usize,
    /// Files the `into` case reads.
    pub files: usize,
    pub case: Option<String>,
    pub dir: PathBuf,
    pub quick: bool,
}

impl Config {
    /// Shape of the 2-D arrays: 8192 columns, `size_mib` MiB of f64.
    pub fn shape2(&self) -> (usize, usize) {
        (self.size_mib * 16, 8192)
    }

    /// Shape of the 3-D array before permutation: (256, 256, 512) for 256 MiB.
    pub fn shape3(&self) -> (usize, usize, usize) {
        (self.size_mib, 256, 512)
    }

    /// Size of the out-of-core files (`append`, `rows`): 4 x `size_mib`, 1024 MiB by default.
    pub fn big_mib(&self) -> usize {
        self.size_mib * 4
    }
}

/// One implementation in a case: a closure that runs the operation once and returns the time
/// of the operation alone; with `true` it also checks the result.
pub struct Imp<'a> {
    name: &'static str,
    run: Box<dyn FnMut(bool) -> Res<Duration> + 'a>,
}

impl<'a> Imp<'a> {
    pub fn new(name: &'static str, run: impl FnMut(bool) -> Res<Duration> + 'a) -> Imp<'a> {
        Imp {
            name,
            run: Box::new(run),
        }
    }
}

/// Runs one untimed warm-up round that checks every result, then `rounds` interleaved rounds:
/// each round runs every implementation once, in the orders of a Williams design
/// ([`balanced_orders`]): over a cycle of `n` rounds (`2n` for an odd count of `n`
/// implementations) each implementation runs at each position, and right after each other
/// one, equally often. Nothing is done between runs: each row finds the heap as the rows
/// before it left it, as in a long-running program that has done other work; the design
/// bills what a row leaves behind (a million small blocks just freed, which glibc merges on
/// the next large allocation; numpy's process just ended, the caches it left cold) to every
/// other row alike, not to whichever a shuffle put after it more often.
pub fn measure(mut imps: Vec<Imp<'_>>, rounds: usize) -> Res<Vec<(&'static str, Vec<Duration>)>> {
    for imp in &mut imps {
        (imp.run)(true).map_err(|e| format!("{} (warm-up and check): {e}", imp.name))?;
    }
    let n = imps.len();
    let mut times = vec![Vec::with_capacity(rounds); n];
    let orders = balanced_orders(n);
    for round in 0..rounds {
        for &i in &orders[round % orders.len()] {
            let imp = &mut imps[i];
            times[i].push((imp.run)(false).map_err(|e| format!("{}: {e}", imp.name))?);
        }
    }
    Ok(imps.iter().map(|i| i.name).zip(times).collect())
}

/// The rows of a Williams design for `n` treatments: `n` orders of `0..n` (`2n` when `n` is
/// odd, the second half the first reversed) in which each treatment is at each position, and
/// directly after each other treatment, equally often.
fn balanced_orders(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    // 0, 1, n-1, 2, n-2, ...
    let base: Vec<usize> = (0..n)
        .map(|k| {
            if k % 2 == 1 {
                k.div_ceil(2)
            } else {
                (n - k / 2) % n
            }
        })
        .collect();
    let mut orders: Vec<Vec<usize>> = (0..n)
        .map(|r| base.iter().map(|&b| (b + r) % n).collect())
        .collect();
    if n % 2 == 1 {
        let reversed: Vec<Vec<usize>> = orders
            .iter()
            .map(|o| o.iter().rev().copied().collect())
            .collect();
        orders.extend(reversed);
    }
    orders
}

/// The results of one case (or of one part of a case: some cases print several tables).
#[derive(Default)]
pub struct Report {
    pub title: String,
    /// Bytes of data per run, for throughput.
    pub bytes: Option<u64>,
    /// Items (arrays, views, calls) per run, for time per item.
    pub items: Option<usize>,
    /// What an item is, for the column header ("array" when empty).
    pub per: &'static str,
    pub rows: Vec<(&'static str, Vec<Duration>)>,
    /// (other implementation, maximum of ndnpy's median ÷ its median).
    pub targets: Vec<(&'static str, f64)>,
    /// Targets that are not ratios (an absolute time), evaluated by the case.
    pub goals: Vec<Goal>,
    pub notes: Vec<String>,
}

/// A target the case evaluates itself, printed on the Targets line.
pub struct Goal {
    /// What was measured and the target, e.g. "ndnpy 1.2 µs per view (target ≤ 5 µs)".
    pub text: String,
    pub met: bool,
}

/// The median of `times` in seconds.
pub fn median_secs(times: &[Duration]) -> f64 {
    median(times)
}

fn median(times: &[Duration]) -> f64 {
    let mut s: Vec<f64> = times.iter().map(Duration::as_secs_f64).collect();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

pub fn fmt_secs(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

impl Report {
    fn print(&self) {
        println!("### {}\n", self.title);
        let ours = self
            .rows
            .iter()
            .find(|r| r.0 == "ndnpy")
            .map_or(f64::NAN, |r| median(&r.1));
        let rounds = self.rows.first().map_or(0, |r| r.1.len());
        let per = if self.per.is_empty() {
            "array"
        } else {
            self.per
        };
        let mut extra = String::new();
        if self.bytes.is_some() {
            extra.push_str(" GiB/s |");
        }
        if self.items.is_some() {
            extra.push_str(&format!(" µs / {per} |"));
        }
        println!("| implementation | median | min | max |{extra} ÷ ndnpy |");
        println!(
            "|---|---:|---:|---:|{}---:|",
            "---:|".repeat(extra.matches('|').count())
        );
        for (name, times) in &self.rows {
            let med = median(times);
            let min = times.iter().min().map_or(f64::NAN, Duration::as_secs_f64);
            let max = times.iter().max().map_or(f64::NAN, Duration::as_secs_f64);
            let mut extra = String::new();
            if let Some(b) = self.bytes {
                extra.push_str(&format!(" {:.2} |", b as f64 / med / f64::from(1 << 30)));
            }
            if let Some(n) = self.items {
                extra.push_str(&format!(" {} |", fmt_micros(med / n as f64 * 1e6)));
            }
            println!(
                "| {name} | {} | {} | {} |{extra} {:.2}x |",
                fmt_secs(med),
                fmt_secs(min),
                fmt_secs(max),
                med / ours
            );
        }
        println!();
        println!("{rounds} interleaved rounds after one untimed warm-up round that checked every result.");
        if !self.targets.is_empty() || !self.goals.is_empty() {
            let mut parts: Vec<String> = self
                .targets
                .iter()
                .map(|&(other, max)| {
                    let theirs = self
                        .rows
                        .iter()
                        .find(|r| r.0 == other)
                        .map_or(f64::NAN, |r| median(&r.1));
                    let ratio = ours / theirs;
                    let verdict = if ratio <= max { "met" } else { "MISSED" };
                    format!("ndnpy ÷ {other} = {ratio:.2}x (target ≤ {max:.2}x: {verdict})")
                })
                .collect();
            parts.extend(
                self.goals
                    .iter()
                    .map(|g| format!("{}: {}", g.text, if g.met { "met" } else { "MISSED" })),
            );
            println!("Targets: {}.", parts.join("; "));
        }
        for note in &self.notes {
            println!("\n{note}");
        }
        println!();
    }
}

/// Microseconds with about three significant digits.
pub fn fmt_micros(us: f64) -> String {
    if us >= 100.0 {
        format!("{us:.0}")
    } else if us >= 1.0 {
        format!("{us:.2}")
    } else {
        format!("{us:.4}")
    }
}

/// The process's peak resident set size (VmHWM) in KiB.
pub fn vm_hwm_kib() -> Res<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .ok_or("no VmHWM in /proc/self/status")?;
    let kib = line
        .split_whitespace()
        .nth(1)
        .ok_or("malformed VmHWM")?
        .parse()?;
    Ok(kib)
}

/// Peak memory of `ndnpy::read_npy` of `path`, measured in a child process of this binary
/// (VmHWM is per process and only grows, so it cannot be measured in this one).
pub fn peak_memory_note(path: &Path, file_len: u64) -> String {
    let result = (|| -> Res<(u64, u64)> {
        let out = Command::new(std::env::current_exe()?)
            .arg("--child-peak")
            .arg(path)
            .output()?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
        }
        let text = String::from_utf8(out.stdout)?;
        let mut it = text.split_whitespace().map(str::parse::<u64>);
        match (it.next(), it.next()) {
            (Some(Ok(a)), Some(Ok(b))) => Ok((a, b)),
            _ => Err(format!("unexpected child output {text:?}").into()),
        }
    })();
    let mib = |kib: u64| kib as f64 / 1024.0;
    match result {
        Ok((before, after)) => {
            let data = file_len as f64 / f64::from(1 << 20);
            let grew = mib(after.saturating_sub(before));
            format!(
                "Peak memory (ndnpy C read, in a child process `--child-peak`): VmHWM {:.1} MiB before \
                 the read, {:.1} MiB after: it grew {grew:.1} MiB for a {data:.1} MiB file, \
                 i.e. N + {:.1} MiB.",
                mib(before),
                mib(after),
                grew - data
            )
        }
        Err(e) => format!("Peak memory: not measured ({e})."),
    }
}

fn parse_args() -> Res<(Config, Child)> {
    let mut args = std::env::args().skip(1);
    let mut size_mib = None;
    let mut rounds = None;
    let mut tiny_count = 10_000;
    let mut rows = None;
    let mut case = None;
    let mut quick = false;
    let mut dir = PathBuf::from("/tmp/ndnpy-bench");
    let mut child = None;
    let mut child_load = None;
    let mut child_parquet = None;
    let mut child_into = None;
    let mut files = None;
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--size-mib" => size_mib = Some(value()?.parse::<usize>()?),
            "--rounds" => rounds = Some(value()?.parse::<usize>()?),
            "--tiny-count" => tiny_count = value()?.parse()?,
            "--rows" => rows = Some(value()?.parse::<usize>()?),
            "--files" => files = Some(value()?.parse::<usize>()?),
            "--case" => {
                let c = value()?;
                if !CASES.contains(&c.as_str()) {
                    return Err(format!("unknown case {c}; cases: {}", CASES.join(" ")).into());
                }
                case = Some(c);
            }
            "--quick" => quick = true,
            "--dir" => dir = PathBuf::from(value()?),
            "--child-peak" => child = Some(PathBuf::from(value()?)),
            "--child-load" => {
                let door = value()?;
                child_load = Some((door, PathBuf::from(value()?)));
            }
            "--child-into" => {
                let mode = value()?;
                let dir = PathBuf::from(value()?);
                child_into = Some((mode, dir, value()?.parse::<usize>()?));
            }
            "--child-parquet" => {
                let codec = value()?;
                let input = PathBuf::from(value()?);
                child_parquet = Some((codec, input, PathBuf::from(value()?)));
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown option {other}\n{USAGE}").into()),
        }
    }
    let size_mib = size_mib.unwrap_or(if quick { 16 } else { 256 });
    let rows = rows.unwrap_or(if quick { 100_000 } else { 1_000_000 });
    let files = files.unwrap_or(if quick { 10_000 } else { 100_000 });
    if size_mib == 0 || rounds == Some(0) || tiny_count == 0 || rows == 0 || files == 0 {
        return Err("sizes, rounds and counts must be at least 1".into());
    }
    let config = Config {
        size_mib,
        rounds: rounds.unwrap_or(if quick { 3 } else { 7 }),
        tiny_rounds: rounds.unwrap_or(if quick { 3 } else { 15 }),
        tiny_count,
        rows,
        files,
        case,
        dir,
        quick,
    };
    Ok((
        config,
        Child {
            peak: child,
            load: child_load,
            parquet: child_parquet,
            into: child_into,
        },
    ))
}

/// What this process does when run as a child of the benchmarks: measure peak memory
/// (`--child-peak PATH`), load a file and exit (`--child-load DOOR PATH`), convert a file to
/// Parquet or back (`--child-parquet CODEC INPUT OUTPUT`; CODEC `to-npy`: Parquet to `.npy`),
/// or read many files by one door (`--child-into MODE DIR COUNT`).
struct Child {
    peak: Option<PathBuf>,
    load: Option<(String, PathBuf)>,
    parquet: Option<(String, PathBuf, PathBuf)>,
    into: Option<(String, PathBuf, usize)>,
}

fn read_trimmed(path: &str) -> String {
    std::fs::read_to_string(path).map_or_else(|_| "?".into(), |s| s.trim().to_string())
}

/// The type of the filesystem holding `dir` (longest mount point that is a prefix of it).
fn filesystem_of(dir: &Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() > 2 && dir.starts_with(f[1]))
                .then(|| (f[1].len(), format!("{} on {}", f[2], f[1])))
        })
        .max()
        .map_or_else(|| "?".into(), |(_, s)| s)
}

fn print_header(cfg: &Config, np: &mut numpy::Numpy) -> Res<()> {
    let cmd: Vec<String> = std::env::args().collect();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "?".into());
    println!("# ndnpy benchmarks\n");
    println!("- command: `{}`", cmd.join(" "));
    println!(
        "- machine: nproc {}, {cpu}, kernel {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        read_trimmed("/proc/sys/kernel/osrelease")
    );
    println!(
        "- transparent hugepages: enabled `{}`, defrag `{}`",
        read_trimmed("/sys/kernel/mm/transparent_hugepage/enabled"),
        read_trimmed("/sys/kernel/mm/transparent_hugepage/defrag")
    );
    println!("- numpy: {}", np.call("version")?);
    println!(
        "- files in {} ({})",
        cfg.dir.display(),
        filesystem_of(&cfg.dir)
    );
    println!(
        "- large arrays {} MiB (append, rows: {} MiB), {} rounds; tiny arrays {} x, {} rounds; \
         parquet ({}, 768) float16; times are medians\n",
        cfg.size_mib,
        cfg.big_mib(),
        cfg.rounds,
        cfg.tiny_count,
        cfg.tiny_rounds,
        cfg.rows
    );
    Ok(())
}

fn run() -> Res<()> {
    let (cfg, child) = parse_args()?;
    if let Some(path) = child.peak {
        return cases::child_peak(&path);
    }
    if let Some((door, path)) = child.load {
        return process::child_load(&door, &path);
    }
    if let Some((mode, dir, count)) = child.into {
        return into::child_into(&mode, &dir, count);
    }
    if let Some((codec, input, output)) = child.parquet {
        return parquet::child_parquet(&codec, &input, &output);
    }
    let start = Instant::now();
    let created_dir = !cfg.dir.exists();
    std::fs::create_dir_all(&cfg.dir)?;
    let mut np = numpy::Numpy::start()?;
    print_header(&cfg, &mut np)?;
    for &case in CASES
        .iter()
        .filter(|&&c| cfg.case.as_deref().is_none_or(|only| only == c))
    {
        let reports = match case {
            "read_c" => vec![cases::read_case(&cfg, &mut np, ReadKind::C)?],
            "read_f" => vec![cases::read_case(&cfg, &mut np, ReadKind::F)?],
            "read_be" => vec![cases::read_case(&cfg, &mut np, ReadKind::BigEndian)?],
            "write_c" => vec![cases::write_case(&cfg, &mut np, WriteKind::C)?],
            "write_f" => vec![cases::write_case(&cfg, &mut np, WriteKind::F)?],
            "write_perm" => vec![cases::write_case(&cfg, &mut np, WriteKind::Permuted)?],
            "tiny" => vec![cases::tiny_case(&cfg, &mut np)?],
            "mmap_sum" => vec![ooc::mmap_sum_case(&cfg, &mut np)?],
            "view_create" => ooc::view_create_case(&cfg, &mut np)?,
            "append" => vec![ooc::append_case(&cfg)?],
            "rows" => ooc::rows_case(&cfg, &mut np)?,
            "strings" => vec![strings::strings_case(&cfg, &mut np)?],
            "npz_tiny" => npz::npz_tiny_case(&cfg, &mut np)?,
            "npz_compress" => vec![npz::npz_compress_case(&cfg, &mut np)?],
            "npz_decompress" => vec![npz::npz_decompress_case(&cfg, &mut np)?],
            "npz_parallel" => vec![npz::npz_parallel_case(&cfg, &mut np)?],
            "inflate" => inflate::inflate_case(&cfg, &mut np)?,
            "records" => vec![records::records_case(&cfg, &mut np)?],
            "process" => vec![process::process_case(&cfg, &mut np)?],
            "remote" => vec![remote::remote_case(&cfg, &mut np)?],
            "region" => region::region_case(&cfg, &mut np)?,
            "safetensors" => vec![safetensors::safetensors_case(&cfg)?],
            "parquet" => parquet::parquet_case(&cfg)?,
            "into" => into::into_case(&cfg, &mut np)?,
            _ => unreachable!("case names are checked in parse_args"),
        };
        for report in &reports {
            report.print();
        }
    }
    if created_dir {
        let _ = std::fs::remove_dir(&cfg.dir);
    }
    println!("Total wall time: {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::balanced_orders;

    /// Each implementation at each position, and right after each other one, equally often.
    #[test]
    fn orders_are_balanced() {
        for n in 1..9 {
            let orders = balanced_orders(n);
            assert_eq!(orders.len(), if n % 2 == 0 { n } else { 2 * n });
            let times = orders.len() / n;
            let mut at = vec![vec![0; n]; n];
            let mut after = vec![vec![0; n]; n];
            for o in &orders {
                let mut sorted = o.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "{o:?}");
                for (p, &i) in o.iter().enumerate() {
                    at[i][p] += 1;
                }
                for w in o.windows(2) {
                    after[w[0]][w[1]] += 1;
                }
            }
            for i in 0..n {
                assert!(at[i].iter().all(|&c| c == times), "n={n}: {at:?}");
                for j in 0..n {
                    let want = if i == j { 0 } else { times };
                    assert_eq!(after[i][j], want, "n={n}: {after:?}");
                }
            }
        }
    }
}
