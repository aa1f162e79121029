//! Debug: the corner patch of an index-first hypothesis as ASCII ink masks.
//! `patch_dump IMAGE GX GY LEVEL...` takes the hypothesis (of the best 40)
//! whose rank glyph lies nearest (GX, GY) and prints its patch at each ink
//! level (`#` ink, `.` paper; level relative to the patch's 85th percentile).
use adjutant::vision::cards::{glyphs, index};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, gx, gy, levels @ ..] = &args[..] else {
        return Err("usage: patch_dump IMAGE GX GY LEVEL...".into());
    };
    let (gx, gy): (f32, f32) = (gx.parse()?, gy.parse()?);
    let rgb = image::open(path)?.to_rgb8();
    let blobs = glyphs::ink_blobs(&rgb, &[]);
    let hyps = glyphs::index_hypotheses(&blobs, 40);
    let mut frames: Vec<adjutant::vision::cards::find::CornerFrame> =
        hyps.iter().map(|h| h.frame).collect();
    if std::env::var("OUTLINE").is_ok() {
        let (singles, _, _) = adjutant::vision::cards::debug_candidates(&rgb);
        frames = singles
            .iter()
            .flat_map(|q| adjutant::vision::cards::find::quad_frames(q, true))
            .collect();
    }
    if let Some(w) = std::env::var("MERGED")
        .ok()
        .and_then(|v| v.parse::<f32>().ok())
    {
        let (_, merged, _) = adjutant::vision::cards::debug_candidates(&rgb);
        frames = merged
            .into_iter()
            .flatten()
            .map(|f| adjutant::vision::cards::find::CornerFrame { width: w, ..f })
            .collect();
    }
    let h = frames
        .iter()
        .min_by(|a, b| {
            let da = (a.origin[0] - gx).hypot(a.origin[1] - gy);
            let db = (b.origin[0] - gx).hypot(b.origin[1] - gy);
            da.total_cmp(&db)
        })
        .ok_or("no hypothesis")?;
    let scale: f32 = std::env::var("SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let f = adjutant::vision::cards::find::CornerFrame {
        width: h.width * scale,
        ..*h
    };
    println!("hyp {:?}", h);
    let p = index::corner_patch(&rgb, &f);
    let lum: Vec<f32> = p
        .pixels()
        .map(|c| c[0].min(c[1]).min(c[2]) as f32)
        .collect();
    let mut s = lum.clone();
    s.sort_by(|a, b| a.total_cmp(b));
    let paper = s[s.len() * 85 / 100];
    println!("paper {paper}");
    for l in levels {
        let l: f32 = l.parse()?;
        println!("level {l}");
        for y in 0..p.height() as usize {
            let row: String = (0..p.width() as usize)
                .map(|x| {
                    if lum[y * p.width() as usize + x] < paper * l {
                        '#'
                    } else {
                        '.'
                    }
                })
                .collect();
            println!("{y:3} {row}");
        }
    }
    Ok(())
}
