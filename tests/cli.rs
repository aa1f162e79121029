//! The command line, run as a player would run it.

use std::process::{Command, Output};

fn adjutant(args: &[&str], config: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(args)
        .env("ADJUTANT_CONFIG_DIR", config)
        .env("ADJUTANT_DATA_DIR", config.join("data"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run adjutant: {e}"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A model file that cannot be read is named with the reason, once.
#[test]
fn a_missing_model_file_is_named_with_its_reason() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let photo = dir.path().join("p.png");
    image::RgbImage::new(8, 8)
        .save(&photo)
        .unwrap_or_else(|e| panic!("{e}"));
    for flag in ["--dice-model", "--card-model"] {
        let o = adjutant(
            &["scan", flag, "nosuch.bin", &photo.to_string_lossy()],
            dir.path(),
        );
        assert!(!o.status.success(), "{}", text(&o));
        let said = String::from_utf8_lossy(&o.stderr);
        let reason = "No such file or directory";
        assert!(
            said.contains("nosuch.bin") && said.contains(reason),
            "{said}"
        );
        assert_eq!(said.matches(reason).count(), 1, "{said}");
    }
}

#[test]
fn rules_lookup_prints_matches() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["rules", "t52", "panic"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("Panic Test"), "{}", text(&o));
    let o = adjutant(&["rules", "chess"], dir.path());
    assert!(!o.status.success());
    assert!(text(&o).contains("unknown game `chess`"), "{}", text(&o));
}

/// `rules GAME --export` writes the built-in ruleset where house rules are
/// read, which `check` then reads; a second export leaves the edited file
/// alone (audit BK K7). Nothing found says what to try (audit BL L6).
#[test]
fn a_ruleset_is_exported_for_house_rules_and_kept() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["rules", "gentlemen-of-war", "--export"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let file = dir.path().join("rulesets").join("gentlemen-of-war.ron");
    let written = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(written.contains("Gentlemen"), "{written}");
    let o = adjutant(&["check"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    std::fs::write(&file, "edited").unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["rules", "gentlemen-of-war", "--export"], dir.path());
    assert!(!o.status.success());
    assert!(text(&o).contains("is there already"), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(&file).ok().as_deref(),
        Some("edited")
    );
    let o = adjutant(&["rules", "t52", "zzqx"], dir.path());
    assert!(
        text(&o).contains("Try another word") && text(&o).contains("adjutant rules t52"),
        "{}",
        text(&o)
    );
}

#[test]
fn check_names_a_bad_file_and_fails() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["check"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    std::fs::create_dir_all(dir.path().join("rulesets")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("rulesets/gunfight.ron"), "Ruleset(id: ")
        .unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["check"], dir.path());
    assert!(!o.status.success());
    let out = text(&o);
    assert!(out.contains("gunfight.ron:1:"), "{out}");
    // More may follow a syntax error: the parser stops at the first.
    assert!(
        out.contains("first syntax error: mend it and check again"),
        "{out}"
    );
    assert!(out.contains("ok   t52"), "{out}");
    // Looking rules up goes on with the built-in ruleset, and says so.
    let o = adjutant(&["rules", "gunfight", "cover"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("gunfight.ron:1:") && said.contains("the built-in ruleset is used instead"),
        "{said}"
    );
}

/// Audit AI6: an edited ruleset is checked where it is, before it is put
/// in place: as the game its name says, else the one its `id` says.
#[test]
fn check_reads_given_files_wherever_they_are() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let good = dir.path().join("my-house-rules.ron");
    std::fs::copy("rulesets/gunfight.ron", &good).unwrap_or_else(|e| panic!("{e}"));
    let bad = dir.path().join("t52.ron");
    std::fs::write(&bad, "Ruleset(id: ").unwrap_or_else(|e| panic!("{e}"));
    let args = [&good, &bad].map(|p| p.to_string_lossy().into_owned());
    let o = adjutant(&["check", &args[0], &args[1]], dir.path());
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(
        out.contains("ok   ") && out.contains("my-house-rules.ron (for gunfight"),
        "{out}"
    );
    assert!(out.contains("t52.ron:1:"), "{out}");
    assert!(out.contains("1 bad ruleset file(s)"), "{out}");
    let o = adjutant(&["check", &args[0]], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    // A misspelt key gets the key meant, as in a file named after its game
    // (audit AK1).
    let text_of = std::fs::read_to_string(&good).unwrap_or_else(|e| panic!("{e}"));
    // `check` of the file with `from` written as `to`: what it says.
    let check_with = |from: &str, to: &str| {
        std::fs::write(&good, text_of.replace(from, to)).unwrap_or_else(|e| panic!("{e}"));
        text(&adjutant(&["check", &args[0]], dir.path()))
    };
    let out = check_with("\"hand_size\"", "\"hand_sise\"");
    assert!(out.contains("did you mean `hand_size`?"), "{out}");
    // A misspelt id is named as such (audit AM4).
    let out = check_with("id: \"gunfight\"", "id: \"gunfihgt\"");
    assert!(out.contains("id `gunfihgt` is not a known game"), "{out}");
}

#[test]
fn play_prints_requests_answers_and_events() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["play", "tests/scripts/roll-off.ron"], dir.path());
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("ask 1: roll 1 die"), "{out}");
    assert!(out.contains("answer 3: dice [2]"), "{out}");
    assert!(out.contains("has the initiative"), "{out}");
    let o = adjutant(
        &["play", "tests/scripts/roll-off.ron", "--json"],
        dir.path(),
    );
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(v["sides"][0]["name"], "Red");
    assert!(v["log"].as_array().is_some_and(|l| !l.is_empty()));
    assert!(v["pending"].is_null(), "{v}");
    // A script cut short says what the game still waits for.
    let good =
        std::fs::read_to_string("tests/scripts/roll-off.ron").unwrap_or_else(|e| panic!("{e}"));
    let short = dir.path().join("short.ron");
    std::fs::write(&short, good.replace("        Roll,\n", "")).unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["play", &short.to_string_lossy(), "--json"], dir.path());
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert!(
        v["pending"]
            .as_str()
            .is_some_and(|p| p.contains("roll 1 die")),
        "{v}"
    );
}

#[test]
fn a_wrong_answer_names_the_step_and_what_was_expected() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let script = dir.path().join("bad.ron");
    let good =
        std::fs::read_to_string("tests/scripts/roll-off.ron").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&script, good.replace("Dice([2])", "Choose(\"volley\")"))
        .unwrap_or_else(|e| panic!("{e}"));
    let script = script.to_string_lossy().into_owned();
    let o = adjutant(&["play", &script], dir.path());
    assert!(!o.status.success());
    let out = text(&o);
    // Named where it is written: line 13, column 9 of the script.
    assert!(
        out.contains("bad.ron:13:9: answer 3: expected 1 die"),
        "{out}"
    );
    // A mistyped choice is offered the option it was likely meant for.
    let t52 = std::fs::read_to_string("tests/scripts/t52-four-rounds.ron")
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.path().join("typo.ron"),
        t52.replacen("Choose(\"volley\")", "Choose(\"voley\")", 1),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let typo = dir.path().join("typo.ron").to_string_lossy().into_owned();
    let out = text(&adjutant(&["play", &typo], dir.path()));
    assert!(out.contains("(did you mean `volley`?)"), "{out}");
    assert_eq!(out.matches("typo.ron").count(), 1, "named once: {out}");
    // The game and the setup events are named where they are written too.
    std::fs::write(
        dir.path().join("chess.ron"),
        good.replace("\"t52\"", "\"chess\"")
            .replace("sides: [0, 1]", "sides: [0, 5]"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let chess = dir.path().join("chess.ron").to_string_lossy().into_owned();
    let out = text(&adjutant(&["play", &chess], dir.path()));
    assert!(
        out.contains("chess.ron:3:11: unknown game `chess`"),
        "{out}"
    );
    std::fs::write(
        dir.path().join("side.ron"),
        good.replace("sides: [0, 1]", "sides: [0, 5]"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let side = dir.path().join("side.ron").to_string_lossy().into_owned();
    let out = text(&adjutant(&["play", &side], dir.path()));
    assert!(out.contains("side.ron:8:9: setup event 3: side 5"), "{out}");
    std::fs::write(dir.path().join("broken.ron"), "Script(game: ")
        .unwrap_or_else(|e| panic!("{e}"));
    let broken = dir.path().join("broken.ron").to_string_lossy().into_owned();
    let o = adjutant(&["play", &broken], dir.path());
    assert!(text(&o).contains("broken.ron:1:"), "{}", text(&o));
}

#[test]
fn log_prints_a_saved_game_and_reports_bad_files() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let save = dir.path().join("g.ron");
    std::fs::write(
        &save,
        "(format: 1, game: T52, seed: 3, events: [Edit(AddSide(name: \"Red\", back: None))])",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let s = save.to_string_lossy().into_owned();
    let o = adjutant(&["log", &s], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("[setup] Red joins"), "{}", text(&o));
    // A check's ruling is listed once after the log, not in its lines.
    let gang = |name: &str, back: &str, men: [&str; 4]| {
        let men: Vec<String> = men.iter().map(|m| format!("(name: \"{m}\")")).collect();
        format!(
            "(name: \"{name}\", back: {back}, gunmen: [{}])",
            men.join(", ")
        )
    };
    let gangs = [
        gang("Red", "Red", ["Kid", "Doc", "Ike", "Billy"]),
        gang("Blue", "Blue", ["Wyatt", "Virgil", "Morgan", "Holliday"]),
    ];
    std::fs::write(
        &save,
        format!(
            "(format: 1, game: Gunfight, seed: 3, events: [Begin(Gunfight((gangs: [{}], civilians: false))), Answer(Confirm), Answer(Cards([\"9h\"])), Answer(Cards([\"4c\"]))])",
            gangs.join(", ")
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["log", &s], dir.path());
    let printed = text(&o);
    assert!(o.status.success(), "{printed}");
    assert!(
        printed.contains("Order of play: Red (9h), Blue (4c)  (initiative)"),
        "{printed}"
    );
    assert!(!printed.contains("(ruling:"), "{printed}");
    let (_, rulings) = printed
        .split_once("Rulings applied:")
        .unwrap_or_else(|| panic!("{printed}"));
    assert_eq!(
        rulings.matches("(initiative) Joker > A").count(),
        1,
        "{printed}"
    );
    // A game begun with a house rule's profile, read without that ruleset:
    // said once, with what to do (audit AH M5).
    std::fs::write(
        &save,
        "(format: 1, game: CardActivation, seed: 3, events: [Begin(CardActivation((sides: [(name: \"Red\", units: [(name: \"Bows\", profile: \"archers\")]), (name: \"Blue\", units: [(name: \"Guards\", profile: \"unit\")])]))), Answer(Cards([\"9h\"]))])",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["log", &s], dir.path());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("setup is refused") && said.contains("give --config-dir"),
        "{said}"
    );
    assert!(!said.contains("replayed in part"), "{said}");
    let missing = dir.path().join("nope.ron").to_string_lossy().into_owned();
    let o = adjutant(&["log", &missing], dir.path());
    assert!(!o.status.success());
    assert!(text(&o).contains("nope.ron"), "{}", text(&o));
}

#[test]
fn every_subcommand_has_help() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for sub in ["rules", "check", "log", "play"] {
        let o = adjutant(&[sub, "--help"], dir.path());
        assert!(o.status.success(), "{sub}: {}", text(&o));
        assert!(text(&o).len() > 80, "{sub}");
    }
}

#[test]
fn scan_reports_bad_files_and_carries_on() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let good = dir.path().join("table.png");
    image::RgbImage::from_pixel(320, 240, image::Rgb([40, 40, 40]))
        .save(&good)
        .unwrap_or_else(|e| panic!("{e}"));
    let bad = dir.path().join("broken.jpg");
    std::fs::write(&bad, b"\xff\xd8 not really a jpeg").unwrap_or_else(|e| panic!("{e}"));
    let missing = dir.path().join("missing.jpg");
    let args: Vec<String> = [&bad, &good, &missing]
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let o = adjutant(
        &["scan", "--json", &args[0], &args[1], &args[2]],
        dir.path(),
    );
    assert!(
        !o.status.success(),
        "bad files must make the exit code non-zero"
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    let ok = &lines[1];
    assert_eq!(ok["width"], 320);
    for key in ["ms", "cards", "unread", "backs", "dice", "unread_dice"] {
        assert!(!ok[key].is_null(), "missing {key}: {ok}");
    }
    assert!(
        lines[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("broken.jpg"))
    );
    // An error line has every list, empty: a checker reads `dice` from each.
    for key in ["cards", "unread", "backs", "dice", "unread_dice"] {
        for line in [&lines[0], &lines[2]] {
            assert_eq!(line[key], serde_json::json!([]), "{key}: {line}");
        }
    }
    assert!(
        lines[2]["error"]
            .as_str()
            .is_some_and(|e| e.contains("missing.jpg"))
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.jpg"));
}

/// A damaged learned deck costs the deck, not the scan: a warning names it
/// and the general model reads.
#[test]
fn a_damaged_learned_deck_is_named_and_the_scan_goes_on() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let decks = dir.path().join("data").join("decks");
    std::fs::create_dir_all(&decks).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(decks.join("mine.bin"), b"not a deck at all").unwrap_or_else(|e| panic!("{e}"));
    let good = dir.path().join("table.png");
    image::RgbImage::from_pixel(320, 240, image::Rgb([40, 40, 40]))
        .save(&good)
        .unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["scan", "--json", &good.to_string_lossy()], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("learned deck not used") && stderr.contains("mine.bin"),
        "{stderr}"
    );
    let line: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(line["width"], 320);
}

/// A die of about 21 px (a real die shown at half size) read with
/// `--dice-scale`: a bad value is refused naming the accepted ones; `auto`
/// says on stderr what it chose and keeps the JSON lines as they are.
#[test]
fn scan_dice_scale_is_checked_and_auto_says_what_it_chose() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/die_4_19.png");
    let crop = image::open(&fixture)
        .unwrap_or_else(|e| panic!("{e}"))
        .to_rgb8();
    let mut frame = image::RgbImage::from_pixel(320, 240, *crop.get_pixel(0, 0));
    image::imageops::replace(&mut frame, &crop, 120, 90);
    let small = dir.path().join("small.png");
    image::imageops::resize(&frame, 160, 120, image::imageops::FilterType::Triangle)
        .save(&small)
        .unwrap_or_else(|e| panic!("{e}"));
    let small = small.to_string_lossy().into_owned();

    let o = adjutant(&["scan", "--dice-scale", "4", &small], dir.path());
    assert!(!o.status.success());
    assert!(
        text(&o).contains("auto or a number from 1 to 3"),
        "{}",
        text(&o)
    );

    let o = adjutant(
        &["scan", "--json", "--dice-scale", "auto", &small],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("chosen automatically"), "{stderr}");
    let line: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(line["dice"][0]["value"], 4, "{line}");
    let size = line["dice"][0]["size"].as_f64().unwrap_or_default();
    assert!(size < 30.0, "read at its own size, not sized up: {line}");
}

#[test]
fn fit_dice_detector_scenes_need_a_prefix() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out.bin");
    let out = out.to_string_lossy().into_owned();
    let o = adjutant(
        &[
            "fit-dice",
            "set",
            "--out",
            &out,
            "--detector-scenes",
            "photos",
        ],
        dir.path(),
    );
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--detector-scenes takes DIR:PREFIX"),
        "{}",
        text(&o)
    );
    // A base model that is not one is named, and nothing is written.
    let base = dir.path().join("base.bin");
    std::fs::write(&base, b"not a model").unwrap_or_else(|e| panic!("{e}"));
    let base = base.to_string_lossy().into_owned();
    let o = adjutant(
        &["fit-dice", "set", "--out", &out, "--detector-only", &base],
        dir.path(),
    );
    assert!(!o.status.success());
    assert!(text(&o).contains(&base), "{}", text(&o));
    assert!(!std::path::Path::new(&out).exists());
}

/// `eval` names every image it could not read on stderr, also when stderr is
/// not a terminal (as here: a checker's pipe), and fails.
#[test]
fn eval_names_the_images_it_could_not_read() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let set = dir.path().join("myset");
    std::fs::create_dir_all(set.join("images")).unwrap_or_else(|e| panic!("{e}"));
    image::RgbImage::from_pixel(64, 48, image::Rgb([200, 200, 200]))
        .save(set.join("images/blank.png"))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(set.join("images/broken.jpg"), b"\xff\xd8 not a jpeg")
        .unwrap_or_else(|e| panic!("{e}"));
    // A photo cut short (still being copied): decoded it would read as a
    // grey half, so it is refused by name.
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
        .encode_image(&image::RgbImage::from_pixel(
            64,
            48,
            image::Rgb([90, 120, 60]),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(set.join("images/cut.jpg"), &jpeg[..jpeg.len() / 2])
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        set.join("labels.json"),
        r#"{"source": "test", "license": "test", "notes": "",
            "items": [{"image": "images/blank.png", "dice": []},
                      {"image": "images/broken.jpg", "dice": [3]},
                      {"image": "images/cut.jpg", "dice": [2]},
                      {"image": "images/gone.jpg", "dice": [4]}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // A labelled image that is not there is refused before anything is
    // read (scored, its die would lower the recall).
    let o = adjutant(&["eval", "--json", &set.to_string_lossy()], dir.path());
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("item 4 (images/gone.jpg): no such image file"),
        "{}",
        text(&o)
    );
    assert!(o.stdout.is_empty(), "nothing scored");
    std::fs::write(
        set.join("labels.json"),
        r#"{"source": "test", "license": "test", "notes": "",
            "items": [{"image": "images/blank.png", "dice": []},
                      {"image": "images/broken.jpg", "dice": [3]},
                      {"image": "images/cut.jpg", "dice": [2]}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(&["eval", "--json", &set.to_string_lossy()], dir.path());
    assert!(!o.status.success(), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("broken.jpg"), "{stderr}");
    assert!(
        stderr.contains("cut.jpg: the file ends before its image does"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    let record: serde_json::Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(record["errors"], 2, "{record}");
    // A filter that selects no image fails, saying so, instead of scoring 0.
    let o = adjutant(
        &["eval", "--only", "zzz", &set.to_string_lossy()],
        dir.path(),
    );
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("no labelled image left to score"),
        "{}",
        text(&o)
    );
    // A set the models were not fitted on is all held out, and said so
    // (byler-d6's held-out blocks once cut every dice set).
    let o = adjutant(
        &["eval", "--json", "--held-out", &set.to_string_lossy()],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    let record: serde_json::Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(record["images"], 3, "{record}");
    assert!(
        text(&o).contains("myset: the built-in models were not fitted on this set"),
        "{}",
        text(&o)
    );
    // A folder without labels before a good set: named, and the good set
    // is still scored.
    let empty = dir.path().join("nolabels");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let o = adjutant(
        &[
            "eval",
            "--json",
            &empty.to_string_lossy(),
            &set.to_string_lossy(),
        ],
        dir.path(),
    );
    assert!(!o.status.success(), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("nolabels"), "{stderr}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let record: serde_json::Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(record["set"], "myset", "{record}");
}

/// The window's own options before a subcommand are refused, saying where
/// `--dice-scale` goes (`adjutant --dice-scale 2 scan` once read at 1x
/// without a word); a model file in the config folder is named when used.
#[test]
fn window_options_before_a_subcommand_are_refused() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let photo = dir.path().join("p.png");
    image::RgbImage::new(8, 8)
        .save(&photo)
        .unwrap_or_else(|e| panic!("{e}"));
    let photo = photo.to_string_lossy().into_owned();
    let o = adjutant(&["--dice-scale", "1.5", "scan", &photo], dir.path());
    assert!(!o.status.success());
    assert!(
        text(&o)
            .contains("give `--dice-scale` after `scan` (`adjutant scan --dice-scale 1.5 ...`)"),
        "{}",
        text(&o)
    );
    let o = adjutant(&["--replay", "frames", "rules", "t52", "panic"], dir.path());
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--replay is for the window only"),
        "{}",
        text(&o)
    );
    // Where it belongs it is taken, and so are the options every command has.
    let o = adjutant(&["scan", "--dice-scale", "2", &photo], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("model file"), "{}", text(&o));
    let models = dir.path().join("models");
    std::fs::create_dir_all(&models).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/dice.bin"),
        models.join("dice.bin"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let config = dir.path().to_string_lossy().into_owned();
    let o = adjutant(&["scan", "--config-dir", &config, &photo], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("using your model file")
            && text(&o).contains("dice.bin"),
        "{}",
        text(&o)
    );
}

/// A reader that stops early (`adjutant rules t52 | head -1`) ends the
/// command quietly: no panic message about a broken pipe.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["rules", "t52"])
        .env("ADJUTANT_CONFIG_DIR", dir.path())
        .env("ADJUTANT_DATA_DIR", dir.path().join("data"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run adjutant: {e}"));
    // Closing our end before it writes (its start-up takes milliseconds);
    // the whole listing would fit in the pipe's buffer.
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
