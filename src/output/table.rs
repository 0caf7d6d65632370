//! The streamed tables of a run directory (fct, pfc, queue, link_util,
//! flow_rates) as CSV or Parquet (`output.format`, docs/scenario.md).
//!
//! A recorder writes its rows as CSV text either way: that text is the one
//! definition of a row. A Parquet table parses each line as it arrives into
//! typed columns ([`Table`]'s declared [`Kind`]s) and writes them out in row
//! groups of [`ROW_GROUP_ROWS`] rows (Snappy-compressed), so its memory stays
//! flat in the run's length; the footer is written when the run commits its
//! files, and nothing appears before (as with every [`AtomicFile`]). The
//! output limit counts the rows' CSV bytes in both formats, so a run stops
//! writing at the same row whichever it writes.
//!
//! [`read_csv_text`] turns a run directory's table back into the CSV text
//! the run would have written (numbers in their shortest exact form), so
//! `rocesim report` and the experiments read either format through one parser.

use super::AtomicFile;
use crate::error::{Error, InputError};
use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use parquet::schema::types::Type;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

/// Rows a Parquet row group holds: about 1-8 MB of column buffers for the
/// recorders' 4-14 columns, and row groups that pandas and polars read in
/// parallel.
pub const ROW_GROUP_ROWS: usize = 1 << 17;

/// The format of the streamed tables (`output.format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableFormat {
    #[default]
    Csv,
    Parquet,
}

impl TableFormat {
    pub fn extension(self) -> &'static str {
        match self {
            TableFormat::Csv => "csv",
            TableFormat::Parquet => "parquet",
        }
    }
}

/// A column's type in the Parquet form (in CSV every column is text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A 64-bit signed integer (ids, bytes, counts).
    Int,
    /// A 64-bit float (times in ns with picosecond decimals, rates, ratios).
    Float,
    /// UTF-8 text (an event's name).
    Text,
}

/// A streamed table: its file's stem and its columns in order. Every column
/// may be empty in a row (a null in Parquet): flow_rates.csv leaves
/// `window_bytes` empty for rate-based controllers.
pub struct Table {
    pub stem: &'static str,
    pub columns: &'static [(&'static str, Kind)],
}

impl Table {
    /// The CSV header line (without its newline).
    pub fn header(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.0).collect();
        names.join(",")
    }

    /// The table's file name in `format`.
    pub fn file_name(&self, format: TableFormat) -> String {
        format!("{}.{}", self.stem, format.extension())
    }
}

/// A table's file in the run directory, or any other file committed with it.
pub enum TableFile {
    Csv(AtomicFile),
    Parquet(Box<ParquetTable>),
}

impl From<AtomicFile> for TableFile {
    fn from(f: AtomicFile) -> TableFile {
        TableFile::Csv(f)
    }
}

impl TableFile {
    /// `table`'s file in `dir`: CSV starts with its header line.
    pub fn create(dir: &Path, table: &Table, format: TableFormat) -> Result<TableFile, Error> {
        let file = AtomicFile::create(dir, &table.file_name(format))?;
        match format {
            TableFormat::Csv => {
                let mut f = file;
                writeln!(f, "{}", table.header()).map_err(|e| f.err(e))?;
                Ok(TableFile::Csv(f))
            }
            TableFormat::Parquet => Ok(TableFile::Parquet(Box::new(ParquetTable::new(
                file, table,
            )?))),
        }
    }

    /// The rows' CSV bytes so far, the header's included (the output limit).
    pub fn written(&self) -> u64 {
        match self {
            TableFile::Csv(f) => f.written(),
            TableFile::Parquet(p) => p.fed,
        }
    }

    /// An I/O error on this file, naming its final path.
    pub fn err(&self, e: io::Error) -> Error {
        match self {
            TableFile::Csv(f) => f.err(e),
            TableFile::Parquet(p) => p.err(e),
        }
    }

    /// Writes what is buffered (a Parquet table's last row group and footer)
    /// and moves the file into place.
    pub fn commit(self) -> Result<(), Error> {
        match self {
            TableFile::Csv(f) => f.commit(),
            TableFile::Parquet(p) => p.commit(),
        }
    }
}

impl Write for TableFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            TableFile::Csv(f) => f.write_all(buf),
            TableFile::Parquet(p) => p.feed(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            TableFile::Csv(f) => f.flush(),
            // Rows leave in whole row groups.
            TableFile::Parquet(_) => Ok(()),
        }
    }
}

/// One column's values of the row group being filled, and its definition
/// levels (1: a value, 0: empty).
enum Buffer {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Text(Vec<ByteArray>),
}

/// A Parquet file filled from CSV rows (see the module's comment).
pub struct ParquetTable {
    stem: &'static str,
    kinds: Vec<Kind>,
    /// Taken when the file is committed.
    writer: Option<SerializedFileWriter<AtomicFile>>,
    buffers: Vec<(Buffer, Vec<i16>)>,
    rows: usize,
    /// The end of a line not yet complete.
    partial: Vec<u8>,
    /// The CSV bytes fed, with the header's that CSV would start with.
    fed: u64,
    /// The final path, for errors.
    path: std::path::PathBuf,
}

impl ParquetTable {
    fn new(file: AtomicFile, table: &Table) -> Result<ParquetTable, Error> {
        let path = file.path().to_path_buf();
        let fields = table.columns.iter().map(|&(name, kind)| {
            let b = match kind {
                Kind::Int => Type::primitive_type_builder(name, Physical::INT64),
                Kind::Float => Type::primitive_type_builder(name, Physical::DOUBLE),
                Kind::Text => Type::primitive_type_builder(name, Physical::BYTE_ARRAY)
                    .with_logical_type(Some(LogicalType::String)),
            };
            let t = b.with_repetition(Repetition::OPTIONAL).build();
            Arc::new(t.expect("a primitive column of a fixed kind"))
        });
        let schema = Type::group_type_builder("schema")
            .with_fields(fields.collect())
            .build()
            .expect("a group of primitive columns");
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            // The same bytes whichever parquet crate built it.
            .set_created_by(format!("rocesim {}", env!("CARGO_PKG_VERSION")))
            .build();
        let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
            .map_err(|e| parquet_err(&path, e))?;
        let kinds: Vec<Kind> = table.columns.iter().map(|c| c.1).collect();
        let buffers = kinds
            .iter()
            .map(|k| {
                let b = match k {
                    Kind::Int => Buffer::Int(Vec::new()),
                    Kind::Float => Buffer::Float(Vec::new()),
                    Kind::Text => Buffer::Text(Vec::new()),
                };
                (b, Vec::new())
            })
            .collect();
        Ok(ParquetTable {
            stem: table.stem,
            kinds,
            writer: Some(writer),
            buffers,
            rows: 0,
            partial: Vec::new(),
            fed: table.header().len() as u64 + 1,
            path,
        })
    }

    fn err(&self, e: io::Error) -> Error {
        Error::io(&self.path, e)
    }

    /// CSV text: whole lines become rows; a line's end waits for the rest.
    fn feed(&mut self, buf: &[u8]) -> io::Result<()> {
        self.fed += buf.len() as u64;
        let mut rest = buf;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            let (line, tail) = rest.split_at(nl);
            rest = &tail[1..];
            if self.partial.is_empty() {
                self.row(line)?;
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(line);
                self.row(&whole)?;
            }
        }
        self.partial.extend_from_slice(rest);
        Ok(())
    }

    /// One CSV line (no quoting: the recorders write none) into the columns.
    fn row(&mut self, line: &[u8]) -> io::Result<()> {
        let text = std::str::from_utf8(line).map_err(|e| bad_row(self.stem, line, &e))?;
        let mut fields = text.split(',');
        for (buffer, defs) in &mut self.buffers {
            let field = fields.next().unwrap_or("");
            if field.is_empty() {
                defs.push(0);
                continue;
            }
            defs.push(1);
            match buffer {
                Buffer::Int(v) => v.push(field.parse().map_err(|e| bad_row(self.stem, line, &e))?),
                Buffer::Float(v) => {
                    v.push(field.parse().map_err(|e| bad_row(self.stem, line, &e))?)
                }
                Buffer::Text(v) => v.push(ByteArray::from(field)),
            }
        }
        if fields.next().is_some() {
            let e = format!("more than {} columns", self.kinds.len());
            return Err(bad_row(self.stem, line, &e));
        }
        self.rows += 1;
        if self.rows == ROW_GROUP_ROWS {
            self.flush_group()?;
        }
        Ok(())
    }

    /// Writes the buffered rows as one row group.
    fn flush_group(&mut self) -> io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let w = self.writer.as_mut().expect("not yet committed");
        let mut group = w.next_row_group().map_err(io::Error::other)?;
        for (buffer, defs) in &mut self.buffers {
            let mut col = group
                .next_column()
                .map_err(io::Error::other)?
                .expect("a buffer per column");
            let res = match buffer {
                Buffer::Int(v) => col.typed::<Int64Type>().write_batch(v, Some(defs), None),
                Buffer::Float(v) => col.typed::<DoubleType>().write_batch(v, Some(defs), None),
                Buffer::Text(v) => col
                    .typed::<ByteArrayType>()
                    .write_batch(v, Some(defs), None),
            };
            res.map_err(io::Error::other)?;
            col.close().map_err(io::Error::other)?;
            match buffer {
                Buffer::Int(v) => v.clear(),
                Buffer::Float(v) => v.clear(),
                Buffer::Text(v) => v.clear(),
            }
            defs.clear();
        }
        group.close().map_err(io::Error::other)?;
        self.rows = 0;
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<(), Error> {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.row(&line).map_err(|e| self.err(e))?;
        }
        self.flush_group().map_err(|e| self.err(e))?;
        let w = self.writer.take().expect("committed once");
        let file = w.into_inner().map_err(|e| parquet_err(&self.path, e))?;
        file.commit()
    }
}

fn parquet_err(path: &Path, e: parquet::errors::ParquetError) -> Error {
    Error::io(path, io::Error::other(e))
}

/// A row the table cannot hold: a recorder's bug, not the user's input.
fn bad_row(stem: &str, line: &[u8], why: &dyn std::fmt::Display) -> io::Error {
    io::Error::other(format!(
        "{stem}: row \"{}\" does not fit its columns: {why}",
        String::from_utf8_lossy(line)
    ))
}

/// Table `stem` of run directory `dir` as CSV text, from `stem.parquet` if
/// the run wrote Parquet, else `stem.csv`; `None` if it has neither. The
/// path returned names the file read (for errors).
pub fn read_csv_text(
    dir: &Path,
    stem: &str,
) -> Result<Option<(std::path::PathBuf, String)>, Error> {
    let pq = dir.join(format!("{stem}.parquet"));
    if pq.is_file() {
        let text = parquet_to_csv(&pq)?;
        return Ok(Some((pq, text)));
    }
    let csv = dir.join(format!("{stem}.csv"));
    match std::fs::read_to_string(&csv) {
        Ok(t) => Ok(Some((csv, t))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(&csv, e)),
    }
}

/// A Parquet table's rows as CSV text with its header.
fn parquet_to_csv(path: &Path) -> Result<String, Error> {
    let bad = |e: parquet::errors::ParquetError| {
        InputError::in_file(path, "", format!("not a readable Parquet file: {e}"))
    };
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let reader = SerializedFileReader::try_from(file).map_err(bad)?;
    let schema = reader.metadata().file_metadata().schema_descr();
    let names: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
    let mut out = names.join(",");
    out.push('\n');
    for row in reader.get_row_iter(None).map_err(bad)? {
        let row = row.map_err(bad)?;
        for (i, (_, field)) in row.get_column_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            use std::fmt::Write as _;
            let _ = match field {
                Field::Null => Ok(()),
                Field::Long(v) => write!(out, "{v}"),
                Field::Double(v) => write!(out, "{v}"),
                Field::Str(s) => write!(out, "{s}"),
                other => write!(out, "{other}"),
            };
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Table = Table {
        stem: "t",
        columns: &[("a", Kind::Int), ("b", Kind::Float), ("c", Kind::Text)],
    };

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("rocesim-table-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Rows written in pieces that split lines come back as the same values,
    /// across several row groups, with empty fields as nulls.
    #[test]
    fn parquet_holds_the_csv_rows() {
        let d = dir("rows");
        let mut f = TableFile::create(&d, &T, TableFormat::Parquet).unwrap();
        let mut csv = String::new();
        let n = ROW_GROUP_ROWS + 5;
        for i in 0..n {
            let row = match i % 3 {
                0 => format!("{i},{}.250,pause\n", i * 2),
                1 => format!("-{i},,resume\n"),
                _ => format!("{i},1e-3,\n"),
            };
            csv.push_str(&row);
        }
        for piece in csv.as_bytes().chunks(7) {
            f.write_all(piece).unwrap();
        }
        assert_eq!(f.written(), (T.header().len() + 1 + csv.len()) as u64);
        assert!(!d.join("t.parquet").exists(), "nothing before the commit");
        f.commit().unwrap();
        let (path, text) = read_csv_text(&d, "t").unwrap().unwrap();
        assert_eq!(path, d.join("t.parquet"));
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("a,b,c"));
        let back: Vec<&str> = lines.collect();
        assert_eq!(back.len(), n);
        assert_eq!(back[0], "0,0.25,pause");
        assert_eq!(back[1], "-1,,resume");
        assert_eq!(back[2], "2,0.001,");
        assert_eq!(n - 1, 131_076, "the last row group's first row is a pause");
        assert_eq!(back[n - 1], "131076,262152.25,pause");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn csv_is_the_text_written() {
        let d = dir("csv");
        let mut f = TableFile::create(&d, &T, TableFormat::Csv).unwrap();
        f.write_all(b"1,2.5,x\n").unwrap();
        f.commit().unwrap();
        let (path, text) = read_csv_text(&d, "t").unwrap().unwrap();
        assert_eq!((path, text.as_str()), (d.join("t.csv"), "a,b,c\n1,2.5,x\n"));
        assert!(read_csv_text(&d, "none").unwrap().is_none());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_row_that_does_not_fit_is_an_error() {
        let d = dir("bad");
        let mut f = TableFile::create(&d, &T, TableFormat::Parquet).unwrap();
        let e = f.write_all(b"x,1,y\n").unwrap_err().to_string();
        assert!(e.contains("t: row \"x,1,y\""), "{e}");
        let e = f.write_all(b"1,1,y,z\n").unwrap_err().to_string();
        assert!(e.contains("more than 3 columns"), "{e}");
        drop(f);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
