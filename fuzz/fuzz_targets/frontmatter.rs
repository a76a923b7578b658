//! State-document frontmatter: any text parses or is refused, and what parses renders and parses
//! back to the same frontmatter.

#![no_main]

use libfuzzer_sys::fuzz_target;
use switchyard_files::frontmatter;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok((fields, body)) = frontmatter::parse(&text)
        && let Ok(rendered) = frontmatter::render(&fields, &body)
    {
        let (again, _) = frontmatter::parse(&rendered).expect("rendered frontmatter parses");
        assert_eq!(again, fields);
    }
});
