//! The vision subcommands of the `adjutant` binary: scan, eval, learn-deck.

use adjutant::paths;
use adjutant::vision::cards::learn::{LabelledImage, copy_sarm_singles, fit_card_model};
use adjutant::vision::cards::{CardModel, CardReader, learn_deck as learn};
use adjutant::vision::dice::fit::{FitOptions, Part, Protocol, fit, fit_detector_only, part_of};
use adjutant::vision::dice::model::DiceModel;
use adjutant::vision::dice::scale::DiceScale;
use adjutant::vision::dice::synth::SynthStyle;
use adjutant::vision::eval::{ImageResult, LabelSet, SetScore, score};
use adjutant::vision::scan::{BatchScan, Looking, Readers, scan_batch};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The built-in readers; `card_model` replaces the card model, otherwise the
/// newest learned deck (unless `general`) is added to it.
fn readers(card_model: Option<&Path>, general: bool) -> Result<Readers> {
    let loaded = Readers::with_overrides(&paths::model_dir()).context("built-in models")?;
    for e in loaded.problems {
        eprintln!("warning: model override not used: {e}");
    }
    for p in &loaded.used {
        eprintln!(
            "using your model file {} instead of the built-in one",
            p.display()
        );
    }
    let r = loaded.readers;
    if let Some(p) = card_model {
        eprintln!("using card model {}", p.display());
        return Ok(r.with_card_model_file(p)?);
    }
    let mut r = r;
    if let Some(p) = paths::newest_deck(&paths::deck_dir()).filter(|_| !general) {
        // A damaged deck file costs the deck, not the scan.
        match r.add_learned_deck(&p) {
            Ok(()) => eprintln!(
                "using your learned deck {} with the general model",
                p.display()
            ),
            Err(e) => eprintln!(
                "warning: learned deck not used, reading with the general model ({e}); teach it again with `adjutant learn-deck`"
            ),
        }
    }
    Ok(r)
}

pub fn scan(
    images: &[PathBuf],
    json: bool,
    card_model: Option<&Path>,
    general: bool,
    dice_model: Option<&Path>,
    dice_scale: DiceScale,
) -> Result<ExitCode> {
    let mut readers = readers(card_model, general)?;
    if let Some(p) = dice_model {
        eprintln!("using dice model {}", p.display());
        let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
        readers.dice = adjutant::vision::dice::DiceReader::from_model_bytes(&bytes)
            .map_err(|e| e.in_model_file(p))?;
    }
    let mut failed = 0;
    let batch = scan_batch(&readers, images, Looking::ALL, dice_scale, || {});
    report_dice_scale(&batch);
    for (path, record) in images.iter().zip(batch.records) {
        let name = path.display().to_string();
        match record {
            Ok(r) if json => println!("{}", serde_json::to_string(&r)?),
            Ok(r) => {
                let cards: Vec<&str> = r.cards.iter().map(|c| c.code.as_str()).collect();
                let dice: Vec<String> = r.dice.iter().map(|d| d.value.to_string()).collect();
                let backs: Vec<&str> = r.backs.iter().map(|b| b.colour.as_str()).collect();
                println!(
                    "{name} ({}x{}, {:.1} ms): cards [{}], unread cards {}, backs [{}], dice [{}], unread dice {}",
                    r.width,
                    r.height,
                    r.ms,
                    cards.join(" "),
                    r.unread.len(),
                    backs.join(" "),
                    dice.join(" "),
                    r.unread_dice.len()
                );
            }
            Err(e) => {
                failed += 1;
                if json {
                    println!("{}", error_line(&name, &e.about_image(path))?);
                }
                eprintln!("adjutant: {}", e.about_image(path));
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The `scan --json` line of an image that could not be read: the fields
/// of every line, empty (a checker reading `dice` from each line must not
/// fail on it), and the reason in `error`.
fn error_line(image: &str, error: &str) -> Result<serde_json::Value> {
    let record = adjutant::vision::scan::ScanRecord {
        image: image.to_string(),
        ..Default::default()
    };
    let mut line = serde_json::to_value(record)?;
    if let Some(fields) = line.as_object_mut() {
        fields.insert("error".into(), error.trim_end().into());
    }
    Ok(line)
}

/// Says on stderr which scale an automatic dice scale chose, and why.
fn report_dice_scale(batch: &BatchScan) {
    if let Some(c) = &batch.calibration {
        if c.is_sure() {
            eprintln!(
                "dice read at {}x, chosen automatically ({})",
                batch.dice_scale,
                c.describe()
            );
        } else {
            eprintln!(
                "dice read at {}x: no scale read these photos' dice surely enough to choose one ({})",
                batch.dice_scale,
                c.describe()
            );
        }
    }
}

/// The photo sets the built-in models were fitted on, known by their
/// `source` (not their folder name, which a copy may change), and which of
/// their images were used: see docs/models.md.
enum FittedOn {
    /// Card photos whose file name starts with this.
    Prefix(&'static str),
    /// The byler-d6 blocks outside `dice::fit::Part::HeldOut`, by file-name
    /// order.
    DiceBlocks,
}

/// Set sources (the start of `labels.json`'s `source`) and what of each the
/// built-in models were fitted on.
const FITTED_SETS: [(&str, FittedOn); 3] = [
    ("EdjeElectronics/", FittedOn::Prefix("train_")),
    ("SarmSKunatham/CardCounting", FittedOn::Prefix("single_")),
    ("nell-byler/dice_detection", FittedOn::DiceBlocks),
];

/// Keeps the images the built-in models were not fitted on. A set they were
/// not fitted on at all keeps every image, and stderr says so (the byler-d6
/// blocks once cut any dice set).
fn keep_held_out(labels: &mut LabelSet, set_name: &str) {
    let name = |i: &adjutant::vision::eval::LabelledItem| file_name(&i.image);
    let fitted = FITTED_SETS
        .iter()
        .find(|(source, _)| labels.source.starts_with(source))
        .map(|(_, f)| f);
    match fitted {
        Some(FittedOn::DiceBlocks) => {
            let mut names: Vec<String> = labels.items.iter().map(name).collect();
            names.sort();
            labels.items.retain(|i| {
                names
                    .binary_search(&name(i))
                    .is_ok_and(|idx| part_of(idx) == Part::HeldOut)
            });
        }
        Some(FittedOn::Prefix(prefix)) => labels.items.retain(|i| !name(i).starts_with(prefix)),
        None => eprintln!(
            "{set_name}: the built-in models were not fitted on this set; --held-out scores all its images"
        ),
    }
}

/// Consecutive images (by file name) dealt to the same fold: near-duplicate
/// shots of one scene have neighbouring names and must not be split between
/// the fitting and the development part.
pub const FOLD_BLOCK: usize = 8;

/// One fold of a split (`K/N`): see `adjutant eval --fold`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fold {
    /// Which fold (0-based).
    pub k: usize,
    /// How many folds.
    pub n: usize,
}

impl Fold {
    /// Parses `K/N` with `K < N`.
    pub fn parse(s: &str) -> Result<Fold> {
        let bad = || anyhow::anyhow!("fold {s:?}: expected K/N with 0 <= K < N");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k >= n {
            return Err(bad());
        }
        Ok(Fold { k, n })
    }

    /// Keeps (`keep`) or drops the items of this fold: `names` sorted, cut
    /// into blocks of [`FOLD_BLOCK`], block `b` belongs to fold `b % n`.
    pub fn filter<T>(&self, items: Vec<T>, name: impl Fn(&T) -> String, keep: bool) -> Vec<T> {
        let mut names: Vec<String> = items.iter().map(&name).collect();
        names.sort();
        items
            .into_iter()
            .filter(|i| {
                let idx = names.binary_search(&name(i)).unwrap_or(0);
                ((idx / FOLD_BLOCK) % self.n == self.k) == keep
            })
            .collect()
    }
}

fn file_name(image: &str) -> String {
    Path::new(image)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Which images of each set `eval` measures.
pub struct EvalFilter<'a> {
    /// Only file names starting with this.
    pub only: Option<&'a str>,
    /// Only the images the built-in models were not fitted on.
    pub held_out: bool,
    /// Only this fold of what is left.
    pub fold: Option<Fold>,
}

pub fn eval(
    sets: &[PathBuf],
    json: bool,
    card_model: Option<&Path>,
    filter: &EvalFilter,
    dice_scale: DiceScale,
) -> Result<ExitCode> {
    let EvalFilter {
        only,
        held_out,
        fold,
    } = *filter;
    // Eval measures the shipped (or given) model, never a learned deck; a
    // player who has one is told, since `scan` reads with it.
    let readers = readers(card_model, true)?;
    if card_model.is_none()
        && let Some(deck) = paths::newest_deck(&paths::deck_dir())
    {
        eprintln!(
            "your learned deck {} is not used: eval measures the built-in card model (`scan --general` reads as eval does)",
            deck.display()
        );
    }
    let mut failed = false;
    for dir in sets {
        // A set that cannot be read is named; the other sets are still scored.
        let mut labels = match LabelSet::load(dir) {
            Ok(labels) => labels,
            Err(e) => {
                eprintln!("adjutant: {e}");
                failed = true;
                continue;
            }
        };
        let set_name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        if held_out {
            keep_held_out(&mut labels, &set_name);
        }
        if let Some(prefix) = only {
            labels.items.retain(|i| {
                Path::new(&i.image)
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            });
        }
        if let Some(f) = fold {
            let items = std::mem::take(&mut labels.items);
            labels.items = f.filter(items, |i| file_name(&i.image), true);
        }
        if labels.items.is_empty() {
            // A filter that selects nothing would score 0 images as a pass.
            eprintln!(
                "adjutant: {}: no labelled image left to score (check --only, --held-out, --fold)",
                dir.display()
            );
            failed = true;
            continue;
        }
        let looking = Looking {
            cards: !labels.is_dice(),
            dice: labels.is_dice(),
        };
        let bar = indicatif::ProgressBar::new(labels.items.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_message(set_name.clone());
        let paths: Vec<PathBuf> = labels.items.iter().map(|i| dir.join(&i.image)).collect();
        let batch = scan_batch(&readers, &paths, looking, dice_scale, || bar.inc(1));
        bar.suspend(|| report_dice_scale(&batch));
        let mut results = Vec::with_capacity(paths.len());
        for (path, record) in paths.iter().zip(batch.records) {
            let r = match record {
                Ok(r) => ImageResult {
                    predicted: if looking.dice {
                        r.dice.iter().map(|d| d.value.to_string()).collect()
                    } else {
                        r.cards.iter().map(|c| c.code.clone()).collect()
                    },
                    unread: if looking.dice {
                        r.unread_dice.len()
                    } else {
                        r.unread.len()
                    },
                    ms: r.ms,
                    error: None,
                },
                Err(e) => {
                    failed = true;
                    // `println` of a hidden bar (stderr not a terminal) prints nothing.
                    let said = e.about_image(path);
                    bar.suspend(|| eprintln!("adjutant: {said}"));
                    ImageResult {
                        error: Some(said),
                        ..Default::default()
                    }
                }
            };
            results.push(r);
        }
        bar.finish_and_clear();
        let s = score(&set_name, &labels, &results);
        if json {
            println!("{}", serde_json::to_string(&s)?);
        } else {
            print_score(&s);
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn print_score(s: &SetScore) {
    println!("== {} ({}, {} images)", s.set, s.kind, s.images);
    println!(
        "   precision {:.2}%  recall {:.2}%  exact images {:.1}%  ({} labelled, {} predicted, {} correct)",
        100.0 * s.precision,
        100.0 * s.recall,
        100.0 * s.exact,
        s.labelled,
        s.predicted,
        s.tp
    );
    println!(
        "   unread {}  images not read (bad files) {}  ms/image median {:.1}  p95 {:.1}",
        s.unread, s.errors, s.ms_median, s.ms_p95
    );
    if !s.top_confusions.is_empty() {
        let c: Vec<String> = s
            .top_confusions
            .iter()
            .map(|(k, n)| format!("{k} x{n}"))
            .collect();
        println!("   most frequent confusions: {}", c.join(", "));
    }
    if let Some(m) = &s.dice_confusion {
        println!("   confusion (rows = truth 1-6, columns = read 1-6):");
        for (i, row) in m.iter().enumerate() {
            let r: Vec<String> = row.iter().map(|n| format!("{n:4}")).collect();
            println!("     {} {}", i + 1, r.join(""));
        }
    }
}

/// Learns from photos named like the sarm-slate-phone set (`single_c10.jpg`).
fn learn_sarm_named(dir: &Path) -> Result<CardModel> {
    let tmp = tempdir_for("sarm")?;
    let n = copy_sarm_singles(dir, &tmp)?;
    eprintln!("learning from {n} photos named like the sarm set");
    let m = learn(&tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(m?)
}

pub fn learn_deck(dir: &Path, name: Option<&str>, sarm_names: bool) -> Result<ExitCode> {
    let model = if sarm_names {
        learn_sarm_named(dir)
    } else {
        Ok(learn(dir)?)
    }
    .with_context(|| format!("learning from {}", dir.display()))?;
    let bytes = model.to_bytes();
    // Check it loads before storing it.
    CardReader::from_model_bytes(&bytes).context("the learned model does not load")?;
    let name = name.map(str::to_string).unwrap_or_else(|| {
        dir.file_name()
            .map_or_else(|| "deck".to_string(), |n| n.to_string_lossy().into_owned())
    });
    let out = paths::deck_dir().join(format!("{name}.bin"));
    adjutant::files::write_atomic(&out, &bytes)?;
    println!(
        "Learned deck saved to {}; scans now use it (pass --general to ignore it).",
        out.display()
    );
    let mut faces: Vec<String> = model
        .faces
        .iter()
        .map(|f| String::from_utf8_lossy(&f.code).into_owned())
        .collect();
    faces.sort();
    faces.dedup();
    if !faces.is_empty() {
        println!(
            "Picture cards also learned by their whole face (read when their corners are hidden or blurred): {}",
            faces.join(" ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn tempdir_for(what: &str) -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("adjutant-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    Ok(dir)
}

/// Reads `DIR` or `DIR:PREFIX` into labelled card images, without fold
/// `leave_out` (of the images with the prefix).
fn card_set(spec: &str, leave_out: Option<Fold>) -> Result<Vec<LabelledImage>> {
    let (dir, prefix) = match spec.rsplit_once(':') {
        Some((d, p)) if !p.contains('/') => (d, p),
        _ => (spec, ""),
    };
    let dir = Path::new(dir);
    let labels = LabelSet::load(dir)?;
    let mut items: Vec<_> = labels
        .items
        .into_iter()
        .filter(|i| file_name(&i.image).starts_with(prefix))
        .collect();
    if let Some(f) = leave_out {
        items = f.filter(items, |i| file_name(&i.image), false);
    }
    Ok(items
        .into_iter()
        .map(|i| LabelledImage {
            path: dir.join(&i.image),
            cards: i.cards.unwrap_or_default(),
            boxes: i
                .boxes
                .iter()
                .filter_map(|b| b.label.as_str().map(|l| (l.to_string(), b.bbox)))
                .collect(),
        })
        .collect())
}

/// What `fit-cards` fits on.
pub struct CardFitSources<'a> {
    /// Labelled sets, `DIR` or `DIR:PREFIX`.
    pub sets: &'a [String],
    /// Folders of code-named single-card photos.
    pub decks: &'a [PathBuf],
    /// Folders of single-card photos named like the sarm set.
    pub sarm_singles: &'a [PathBuf],
    /// Drop samples this close (cosine distance) to a kept one of the same label.
    pub condense: Option<f32>,
    /// Leave this fold out of every labelled set (development split).
    pub leave_out: Option<Fold>,
}

pub fn fit_cards(out: &Path, src: &CardFitSources) -> Result<ExitCode> {
    let CardFitSources {
        sets,
        decks,
        sarm_singles,
        condense,
        leave_out,
    } = src;
    let mut model: Option<CardModel> = None;
    let mut add = |m: CardModel| match &mut model {
        Some(x) => x.merge(&m),
        None => model = Some(m),
    };
    for spec in *sets {
        let items = card_set(spec, *leave_out)?;
        eprintln!("fitting on {} images from {spec}", items.len());
        add(fit_card_model(&items)?);
    }
    for d in *decks {
        add(learn(d).with_context(|| format!("learning from {}", d.display()))?);
    }
    for d in *sarm_singles {
        add(learn_sarm_named(d).with_context(|| format!("learning from {}", d.display()))?);
    }
    let mut model = model.context("give at least one --set, --deck or --sarm-singles")?;
    if let Some(d) = condense {
        let n = model.condense(*d);
        eprintln!("condense {d}: dropped {n} near-duplicate samples");
    }
    let bytes = model.to_bytes();
    adjutant::files::write_atomic(out, &bytes)?;
    println!(
        "wrote {} ({} bytes: {} rank, {} suit, {} face samples)",
        out.display(),
        bytes.len(),
        model.rank.len(),
        model.suit.len(),
        model.faces.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// Splits a `fit-dice --cards` value `DIR[:PREFIX]` at its last `:` when
/// what follows is a plain file-name prefix (no path separator), so that a
/// plain directory (even `C:\cards`) keeps its meaning.
fn split_card_set(arg: &str) -> (PathBuf, Option<String>) {
    match arg.rsplit_once(':') {
        Some((dir, prefix))
            if !dir.is_empty() && !prefix.is_empty() && !prefix.contains(['/', '\\']) =>
        {
            (PathBuf::from(dir), Some(prefix.to_string()))
        }
        _ => (PathBuf::from(arg), None),
    }
}

/// The fit settings of `fit-dice` beyond its set, output and card photos.
pub struct FitDiceFlags<'a> {
    /// Random seed.
    pub seed: u64,
    /// `--cnn-widths` as given (two channel counts).
    pub cnn_widths: &'a [usize],
    /// `--final SELECT_MODEL`.
    pub final_from: Option<&'a Path>,
    /// `--check-final SELECT_MODEL`.
    pub check_final_from: Option<&'a Path>,
    /// `--check-select`.
    pub check_select: bool,
    /// `--synthetic N`.
    pub synthetic: usize,
    /// `--synthetic-style STYLE` (1 or 2).
    pub synthetic_style: u8,
    /// `--candidate-jitter N`.
    pub candidate_jitter: usize,
    /// `--extra-train DIR` (repeatable).
    pub extra_train: &'a [PathBuf],
    /// `--detector-scenes DIR:PREFIX` (repeatable).
    pub detector_scenes: &'a [String],
    /// `--detector-only BASE_MODEL`.
    pub detector_only: Option<&'a Path>,
}

pub fn fit_dice(
    set: &Path,
    out: &Path,
    cards: &[String],
    flags: FitDiceFlags<'_>,
) -> Result<ExitCode> {
    let FitDiceFlags {
        seed,
        cnn_widths,
        final_from,
        check_final_from,
        check_select,
        synthetic,
        synthetic_style,
        candidate_jitter,
        extra_train,
        detector_scenes,
        detector_only,
    } = flags;
    let mut opts = FitOptions::new(set.to_path_buf());
    for c in cards {
        match split_card_set(c) {
            (dir, None) => opts.card_dirs.push(dir),
            (dir, Some(prefix)) => opts.sampled_card_sets.push((dir, prefix)),
        }
    }
    opts.seed = seed;
    opts.synthetic_per_epoch = synthetic;
    opts.candidate_jitter = candidate_jitter;
    opts.extra_train_sets = extra_train.to_vec();
    for scenes in detector_scenes {
        match split_card_set(scenes) {
            (dir, Some(prefix)) => opts.detector_scene_sets.push((dir, prefix)),
            (_, None) => anyhow::bail!(
                "--detector-scenes takes DIR:PREFIX, the photos whose name starts with PREFIX (got {scenes})"
            ),
        }
    }
    opts.synthetic_style = SynthStyle::from_number(synthetic_style)
        .with_context(|| format!("--synthetic-style takes 1 or 2 (got {synthetic_style})"))?;
    opts.cnn_widths = match cnn_widths {
        [c1, c2] => (*c1, *c2),
        _ => anyhow::bail!(
            "--cnn-widths takes two channel counts, C1,C2 (got {})",
            cnn_widths.len()
        ),
    };
    if check_select {
        opts.protocol = Protocol::CheckSelect;
    }
    if let Some(sel) = final_from.or(check_final_from) {
        let m = DiceModel::from_bytes(
            &std::fs::read(sel).with_context(|| format!("reading {}", sel.display()))?,
        )?;
        let (det_threshold, read_threshold) = (m.det_threshold, m.read_threshold);
        opts.protocol = if final_from.is_some() {
            Protocol::Final {
                det_threshold,
                read_threshold,
            }
        } else {
            Protocol::CheckFinal {
                det_threshold,
                read_threshold,
            }
        };
    }
    if let Some(base_path) = detector_only {
        let mut base = DiceModel::from_bytes(
            &std::fs::read(base_path)
                .with_context(|| format!("reading {}", base_path.display()))?,
        )
        .with_context(|| format!("reading {}", base_path.display()))?;
        let (detector, log) = fit_detector_only(&opts)?;
        base.detector = detector;
        adjutant::files::write_atomic(out, &base.to_bytes())?;
        println!("{log}");
        println!(
            "wrote {} (the detector refitted; classifier and thresholds of {})",
            out.display(),
            base_path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let outcome = fit(&opts)?;
    adjutant::files::write_atomic(out, &outcome.model.to_bytes())?;
    println!("{}", outcome.log);
    println!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_set_prefix_split() {
        let d = "../shared/data/cards/edje-pinochle-phone/images";
        assert_eq!(split_card_set(d), (PathBuf::from(d), None));
        assert_eq!(
            split_card_set(&format!("{d}:train_")),
            (PathBuf::from(d), Some("train_".to_string()))
        );
        assert_eq!(
            split_card_set(r"C:\cards"),
            (PathBuf::from(r"C:\cards"), None)
        );
        assert_eq!(split_card_set("cards:"), (PathBuf::from("cards:"), None));
    }
}
