//! Debug: centre-pip reads of every whole-card outline in the given images
//! (`pip_diag MODEL IMAGES...`), printed with the outline centre.
use adjutant::vision::cards::{CardReader, debug_candidates};
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let model = std::fs::read(args.next().ok_or("model")?)?;
    let reader = CardReader::from_model_bytes(&model)?;
    for path in args {
        let img = image::open(&path)?.to_rgb8();
        let (singles, _, _) = debug_candidates(&img);
        for q in singles {
            if let Some(r) = reader.read_pips(&img, &q) {
                let c = q.centre();
                println!("{path} {} {} {} {}", c[0], c[1], r.code, r.confidence);
            }
        }
    }
    Ok(())
}
