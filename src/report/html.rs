//! Self-contained HTML: inline CSS and inline SVG figures, no script, no
//! external resource, so a report opens anywhere without network access.

use super::figures::Fig;

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(c),
        }
    }
    o
}

/// A table; cells are escaped. Numeric-looking cells are right-aligned.
pub fn table(headers: &[String], rows: &[Vec<String>]) -> String {
    let mut h = String::from("<table>\n<thead><tr>");
    for c in headers {
        h += &format!("<th>{}</th>", esc(c));
    }
    h += "</tr></thead>\n<tbody>\n";
    for r in rows {
        h += "<tr>";
        for c in r {
            let num = c
                .trim_start_matches(['-', '+'])
                .starts_with(|ch: char| ch.is_ascii_digit());
            if num {
                h += &format!("<td class=\"n\">{}</td>", esc(c));
            } else {
                h += &format!("<td>{}</td>", esc(c));
            }
        }
        h += "</tr>\n";
    }
    h + "</tbody>\n</table>\n"
}

/// A figure with its inline SVG, or a note saying why it is missing. The
/// `data-points` attribute counts what the figure draws (tests check it).
pub fn figure(f: &Fig, svg: Option<&str>) -> String {
    match svg {
        Some(svg) => {
            let start = svg.find("<svg").unwrap_or(0);
            format!(
                "<figure id=\"{id}\" data-points=\"{n}\">\n{svg}\n<figcaption><b>{title}.</b> {cap} \
                 <a href=\"figures/{id}.svg\">SVG</a> · <a href=\"figures/{id}.png\">PNG</a></figcaption>\n</figure>\n",
                id = esc(&f.stem),
                n = f.points(),
                svg = &svg[start..],
                title = esc(&f.title),
                cap = esc(&f.caption),
            )
        }
        None => format!(
            "<div class=\"missing\" id=\"{}\"><b>{}:</b> not drawn: {}.</div>\n",
            esc(&f.stem),
            esc(&f.title),
            esc(&f.missing)
        ),
    }
}

/// A whole page.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<h1>{t}</h1>\n{body}</body>\n</html>\n",
        t = esc(title),
    )
}

const CSS: &str = "body { font-family: sans-serif; max-width: 1000px; margin: 1em auto; padding: 0 1em; color: #222; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f2f2f2; }
figure { margin: 1em 0; }
figure svg { width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; }
.missing { background: #fff7e0; border: 1px solid #e8d08a; padding: 0.5em; margin: 1em 0; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
.note { color: #555; font-size: 0.9em; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_numbers_align_right() {
        assert_eq!(esc("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
        let t = table(
            &["k".into(), "v".into()],
            &[vec!["<x>".into(), "1.5".into()]],
        );
        assert!(t.contains("<td>&lt;x&gt;</td><td class=\"n\">1.5</td>"));
    }
}
