//! Byte encodings for published files: SHA-256 digests, raw deflate, and a
//! base-85 text form that may sit inside an HTML `<script>` element.

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    sha256(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Standard base64 with padding (for CSP hashes and `data:` URLs).
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Raw deflate (no zlib or gzip header), as the browser's
/// `DecompressionStream("deflate-raw")` reads it.
pub fn deflate(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(bytes, 9)
}

/// The 85 printable ASCII characters that base85 text may use: all of
/// `!`..`~` except `"`, `&`, `'`, `/`, `<`, `=`, `>`, `\` and `` ` ``, so
/// the text is safe inside an HTML element or attribute and a JavaScript
/// string. 4 bytes take 5 characters (base64 takes 5⅓).
const BASE85: &[u8; 85] = b"!#$%()*+,-.0123456789:;?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~";

/// `bytes` as base85 text: each group of 4 bytes (the last one padded with
/// zeros) is a big-endian number written as 5 digits, most significant
/// first. The reader needs the byte length to drop the padding.
pub fn base85_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(4) * 5);
    for chunk in bytes.chunks(4) {
        let mut group = [0u8; 4];
        group[..chunk.len()].copy_from_slice(chunk);
        let mut n = u32::from_be_bytes(group);
        let mut digits = [0u8; 5];
        for digit in digits.iter_mut().rev() {
            *digit = BASE85[(n % 85) as usize];
            n /= 85;
        }
        out.extend(digits.iter().map(|d| char::from(*d)));
    }
    out
}

/// The bytes of base85 `text` (see [`base85_encode`]), `length` of them.
pub fn base85_decode(text: &str, length: usize) -> Result<Vec<u8>, String> {
    let mut value = [u8::MAX; 128];
    for (i, c) in BASE85.iter().enumerate() {
        value[usize::from(*c)] = i as u8;
    }
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if digits.len() % 5 != 0 || digits.len() / 5 * 4 < length || digits.len() / 5 * 4 >= length + 4 {
        return Err(format!("{} base85 characters cannot hold {length} bytes", digits.len()));
    }
    let mut out = Vec::with_capacity(digits.len() / 5 * 4);
    for (g, group) in digits.chunks(5).enumerate() {
        let mut n: u64 = 0;
        for (i, d) in group.iter().enumerate() {
            let v = value.get(usize::from(*d)).copied().unwrap_or(u8::MAX);
            if v == u8::MAX {
                return Err(format!("character {} is not base85: {:?}", g * 5 + i, char::from(*d)));
            }
            n = n * 85 + u64::from(v);
        }
        let n = u32::try_from(n).map_err(|_| format!("characters {}..{} exceed 32 bits", g * 5, g * 5 + 5))?;
        out.extend_from_slice(&n.to_be_bytes());
    }
    out.truncate(length);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_strings() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn base64_of_known_strings() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn base85_round_trips_and_stays_html_safe() {
        assert_eq!(BASE85.len(), 85);
        for length in 0..40usize {
            let bytes: Vec<u8> = (0..length).map(|i| (i * 97 + 13) as u8).collect();
            let text = base85_encode(&bytes);
            assert_eq!(text.len(), length.div_ceil(4) * 5);
            assert!(!text.contains(['<', '>', '&', '"', '\'', '\\', '/', '=', '`']));
            assert_eq!(base85_decode(&text, length).unwrap(), bytes);
        }
        // Worked out by hand from the alphabet: 0xffff_ffff = 82·85⁴ + 23·85³
        // + 54·85² + 12·85 + 0, digits `|`, `?`, `_`, `1`, `!`; 1 is the
        // lowest digit `#`; "Man" is padded to "Man\0" first.
        assert_eq!(base85_encode(&[0xff; 4]), "|?_1!");
        assert_eq!(base85_encode(&[0, 0, 0, 1]), "!!!!#");
        assert_eq!(base85_encode(b"Man"), "@szxE");
        assert_eq!(base85_decode("@szxE", 3).unwrap(), b"Man");
        assert_eq!(base85_decode(&base85_encode(&[0xff; 8]), 8).unwrap(), vec![0xff; 8]);
        assert!(base85_decode("<<<<<", 4).unwrap_err().contains("not base85"));
        assert!(base85_decode("!!!!", 3).is_err());
        assert!(base85_decode("~~~~~", 4).unwrap_err().contains("32 bits"));
    }

    #[test]
    fn deflate_round_trips_through_miniz() {
        let text = b"the same words, the same words, the same words".repeat(50);
        let packed = deflate(&text);
        assert!(packed.len() < text.len() / 10);
        assert_eq!(miniz_oxide::inflate::decompress_to_vec(&packed).unwrap(), text);
    }
}
