//! Diagnostics of the picture-card reader (`vision::cards::faces`):
//! `cargo run --release --example face_diag -- MODEL IMAGE...` reads each
//! image with the model's face samples left out and prints, for every outline
//! left unread and (with `FACE_DIAG_READS=1`) every card read from its
//! indices, the three nearest cards by face (code, cosine distance) and what
//! `classify_face` makes of it.

use adjutant::vision::cards::faces::{classify_face, face_feature, nearest_per_card};
use adjutant::vision::cards::model::FaceSample;
use adjutant::vision::cards::{CardModel, CardReader};
use adjutant::vision::geometry::Quad;
use image::RgbImage;

fn nearest(samples: &[FaceSample], feat: &[f32]) -> String {
    nearest_per_card(samples, feat)
        .iter()
        .take(3)
        .map(|(c, d)| format!("{}:{d:.3}", String::from_utf8_lossy(c)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn report(what: &str, rgb: &RgbImage, quad: &Quad, faces: &[FaceSample]) {
    let c = quad.centre();
    match face_feature(rgb, quad) {
        Some(f) => println!(
            "  {what} at ({:.0}, {:.0}): {} -> {:?}",
            c[0],
            c[1],
            nearest(faces, &f),
            classify_face(faces, &f)
        ),
        None => println!("  {what} at ({:.0}, {:.0}): no face feature", c[0], c[1]),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (model_path, images) = args
        .split_first()
        .ok_or("usage: face_diag MODEL IMAGE...")?;
    let model = CardModel::from_bytes(&std::fs::read(model_path)?)?;
    let faces = model.faces.clone();
    let reader = CardReader::from_model(CardModel {
        faces: Vec::new(),
        ..model
    });
    let reads = std::env::var("FACE_DIAG_READS").is_ok();
    for path in images {
        let img = image::open(path)?;
        let rgb = img.to_rgb8();
        let scan = reader.read(&img)?;
        println!(
            "{path}: {} read, {} unread",
            scan.cards.len(),
            scan.unread.len()
        );
        for q in &scan.unread {
            report("unread", &rgb, q, &faces);
        }
        if reads {
            for r in &scan.cards {
                report(&format!("read {}", r.code), &rgb, &r.quad, &faces);
            }
        }
    }
    Ok(())
}
