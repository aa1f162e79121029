//! Writes the paper mask of an image with its card outlines and merged-blob
//! corners drawn on it: `cargo run --release --example mask_dump -- IMAGE OUT.png`.
use adjutant::vision::cards::debug_candidates;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(inp), Some(out)) = (args.get(1), args.get(2)) else {
        return Err("usage: mask_dump IMAGE OUT.png".into());
    };
    let rgb = image::open(inp)?.to_rgb8();
    let (quads, merged, mask) = debug_candidates(&rgb);
    let mut img = image::RgbImage::new(mask.width(), mask.height());
    for (x, y, p) in mask.enumerate_pixels() {
        let v = p.0[0] / 2;
        img.put_pixel(x, y, image::Rgb([v, v, v]));
    }
    let sx = mask.width() as f32 / rgb.width() as f32;
    let sy = mask.height() as f32 / rgb.height() as f32;
    let mut dot = |x: f32, y: f32, c: [u8; 3]| {
        let (x, y) = ((x * sx) as i64, (y * sy) as i64);
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (px, py) = (x + dx, y + dy);
                if px >= 0 && py >= 0 && (px as u32) < img.width() && (py as u32) < img.height() {
                    img.put_pixel(px as u32, py as u32, image::Rgb(c));
                }
            }
        }
    };
    for q in &quads {
        for i in 0..4 {
            let (a, b) = (q.0[i], q.0[(i + 1) % 4]);
            for t in 0..40 {
                let t = t as f32 / 40.0;
                dot(
                    a[0] + (b[0] - a[0]) * t,
                    a[1] + (b[1] - a[1]) * t,
                    [0, 255, 0],
                );
            }
        }
    }
    for frames in &merged {
        for f in frames {
            dot(f.origin[0], f.origin[1], [255, 0, 0]);
        }
    }
    println!("{} outlines, {} merged blobs", quads.len(), merged.len());
    img.save(out)?;
    Ok(())
}
