//! Opening image files: decoded, and refused when a JPEG ends before its
//! image does. The decoder fills a cut-short JPEG with grey and reports
//! success, so a photo still being copied would be read as a table with
//! fewer cards on it, without a word.

use super::VisionError;
use std::path::Path;

/// The largest image file opened: a 40-megapixel frame (the readers' limit)
/// stored as uncompressed RGB is 120 MB.
pub const MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;

/// Opens and decodes the image at `path` (format guessed from its bytes).
/// A JPEG that stops before its end marker is refused
/// ([`VisionError::Truncated`]).
pub fn open_image(path: &Path) -> Result<image::DynamicImage, VisionError> {
    let io = |source| VisionError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Not read into memory whole when no photo could be that large.
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(VisionError::NotAPhoto {
            path: path.to_path_buf(),
            why: format!(
                "a folder, not a photo (name the photos in it, e.g. {}/*.jpg)",
                path.display()
            ),
        });
    }
    let len = meta.len();
    if len > MAX_FILE_BYTES {
        return Err(VisionError::NotAPhoto {
            path: path.to_path_buf(),
            why: format!("{len} bytes is more than any photo the readers take ({MAX_FILE_BYTES})"),
        });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    if bytes.is_empty() {
        return Err(VisionError::NotAPhoto {
            path: path.to_path_buf(),
            why: "the file is empty (0 bytes)".into(),
        });
    }
    if !jpeg_is_whole(&bytes) {
        return Err(VisionError::Truncated {
            path: path.to_path_buf(),
            // No byte count: a file still being copied grows, and the
            // message must stay the same for a player to dismiss it once.
            what: "a JPEG without its end".into(),
        });
    }
    let reader = || {
        image::ImageReader::new(std::io::Cursor::new(&bytes))
            .with_guessed_format()
            .map_err(|source| VisionError::Io {
                path: path.to_path_buf(),
                source,
            })
    };
    // Refused from its header, before a huge frame is decoded into memory.
    if let Ok((width, height)) = reader()?.into_dimensions()
        && width as u64 * height as u64 > super::cards::MAX_PIXELS
    {
        return Err(VisionError::ImageTooLarge {
            width,
            height,
            limit: super::cards::MAX_PIXELS,
        });
    }
    reader()?.decode().map_err(|source| VisionError::Decode {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether `bytes`, if they are a JPEG, reach its end marker: the segments
/// are walked by their lengths and each scan's entropy-coded data to the
/// marker after it, so an end-marker byte pair inside an embedded thumbnail
/// or the compressed data is not taken for the end, and data a camera
/// appends after the end does not matter. Anything that is not a JPEG is
/// left to its decoder (true).
pub fn jpeg_is_whole(bytes: &[u8]) -> bool {
    const SOI: [u8; 2] = [0xFF, 0xD8];
    const EOI: u8 = 0xD9;
    const SOS: u8 = 0xDA;
    if !bytes.starts_with(&SOI) {
        return true;
    }
    let mut i = 2;
    loop {
        // The next marker: 0xFF (fill bytes allowed), then its code.
        let start = i;
        while bytes.get(i) == Some(&0xFF) {
            i += 1;
        }
        let Some(&code) = bytes.get(i) else {
            return false;
        };
        if i == start {
            // Not at a marker where one must be: damaged, not just short.
            // The decoder judges that.
            return true;
        }
        i += 1;
        match code {
            EOI => return true,
            // Markers without a length.
            0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        let Some(len) = bytes
            .get(i..i + 2)
            .map(|l| usize::from(u16::from_be_bytes([l[0], l[1]])))
        else {
            return false;
        };
        if len < 2 || i + len > bytes.len() {
            return false;
        }
        i += len;
        if code == SOS {
            // Entropy-coded data runs to the next marker that is not a
            // stuffed 0xFF00 or a restart marker.
            loop {
                let Some(at) = bytes[i..].iter().position(|&b| b == 0xFF) else {
                    return false;
                };
                i += at;
                match bytes.get(i + 1) {
                    None => return false,
                    Some(0x00 | 0xD0..=0xD7) => i += 2,
                    Some(0xFF) => i += 1,
                    Some(_) => {
                        i += 1;
                        break;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg() -> Vec<u8> {
        let img = image::RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 5) as u8, ((x + y) * 2) as u8])
        });
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
            .encode_image(&img)
            .unwrap_or_else(|e| panic!("{e}"));
        out
    }

    #[test]
    fn a_whole_jpeg_is_whole_and_every_cut_is_not() {
        let whole = jpeg();
        assert!(jpeg_is_whole(&whole));
        for cut in 2..whole.len() {
            assert!(
                !jpeg_is_whole(&whole[..cut]),
                "cut at {cut} of {}",
                whole.len()
            );
        }
        // A trailer after the end marker (some phones add one) is fine.
        let mut trailer = whole.clone();
        trailer.extend_from_slice(b"SEFT trailer \xFF\xD8\x00");
        assert!(jpeg_is_whole(&trailer));
        // A segment whose last byte is 0xFF followed by a stray byte is
        // damaged, not cut short (the stray byte is no marker code).
        assert!(jpeg_is_whole(
            b"\xFF\xD8\xFF\xE1\x00\x04\x00\xFF\xDA\x00\x02"
        ));
        // Not JPEGs: left to their decoders.
        assert!(jpeg_is_whole(b"\x89PNG\r\n"));
        assert!(jpeg_is_whole(b""));
    }

    /// Audit AI5: a file that is no image, and an image whose data is
    /// damaged, are said in plain words.
    #[test]
    fn a_file_that_is_no_image_and_a_damaged_one_are_said_plainly() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let text = dir.path().join("notes.jpg");
        std::fs::write(&text, b"just some text").unwrap_or_else(|e| panic!("{e}"));
        let said = open_image(&text).err().map(|e| e.about_image(&text));
        assert!(
            said.as_deref()
                .is_some_and(|m| m
                    .ends_with("notes.jpg: not an image file (no image format recognised in it)")),
            "{said:?}"
        );
        let damaged = dir.path().join("damaged.png");
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.extend_from_slice(b"\0\0\0\x04garbage and more garbage");
        std::fs::write(&damaged, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let said = open_image(&damaged).err().map(|e| e.about_image(&damaged));
        assert!(
            said.as_deref().is_some_and(|m| m.contains(
                "damaged.png: the image data is damaged; copy or save it again (the decoder says: "
            ) && !m.contains('\n')),
            "{said:?}"
        );
    }

    #[test]
    fn an_empty_file_and_a_huge_frame_are_refused_before_decoding() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let empty = dir.path().join("empty.jpg");
        std::fs::write(&empty, b"").unwrap_or_else(|e| panic!("{e}"));
        let said = open_image(&empty).err().map(|e| e.about_image(&empty));
        assert!(
            said.as_deref()
                .is_some_and(|m| m.contains("empty.jpg: the file is empty")),
            "{said:?}"
        );
        // A JPEG whose frame header says 10000x5000: refused from the
        // header (the data behind it is for 64x48, so a decode would fail
        // differently).
        let mut big_jpeg = jpeg();
        let sof = big_jpeg
            .windows(2)
            .position(|w| w == [0xFF, 0xC0])
            .unwrap_or_else(|| panic!("no SOF0"));
        // Marker, length (2), precision (1), then height and width.
        big_jpeg[sof + 5..sof + 7].copy_from_slice(&5_000u16.to_be_bytes());
        big_jpeg[sof + 7..sof + 9].copy_from_slice(&10_000u16.to_be_bytes());
        let big = dir.path().join("big.jpg");
        std::fs::write(&big, &big_jpeg).unwrap_or_else(|e| panic!("{e}"));
        let said = open_image(&big).err().map(|e| e.about_image(&big));
        assert!(
            said.as_deref()
                .is_some_and(|m| m.contains("big.jpg: image too large: 10000x5000")),
            "{said:?}"
        );
    }

    #[test]
    fn a_folder_is_refused_with_what_to_pass_instead() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let said = open_image(dir.path()).err().map(|e| e.to_string());
        assert!(
            said.as_deref()
                .is_some_and(|s| s.contains("a folder, not a photo")),
            "{said:?}"
        );
    }

    #[test]
    fn a_cut_short_jpeg_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let whole = jpeg();
        let path = dir.path().join("photo.jpg");
        std::fs::write(&path, &whole[..whole.len() * 2 / 3]).unwrap_or_else(|e| panic!("{e}"));
        let said = open_image(&path).map(|_| ()).map_err(|e| e.to_string());
        assert!(
            said.as_ref().is_err_and(|s| s.contains("photo.jpg")
                && s.contains("ends before its image does")),
            "{said:?}"
        );
        std::fs::write(&path, &whole).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(open_image(&path).map(|i| i.width()).ok(), Some(64));
        // A file larger than any photo is refused before it is read (a
        // sparse file: nothing is written to disk).
        let huge = dir.path().join("huge.jpg");
        std::fs::File::create(&huge)
            .and_then(|f| f.set_len(MAX_FILE_BYTES + 1))
            .unwrap_or_else(|e| panic!("{e}"));
        let said = open_image(&huge).map(|_| ()).map_err(|e| e.to_string());
        assert!(
            said.as_ref()
                .is_err_and(|s| s.contains("huge.jpg") && s.contains("more than any photo")),
            "{said:?}"
        );
    }
}
