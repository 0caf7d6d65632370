//! Kind-tagged tables: `[topology]`'s `kind` key names a variant of an enum,
//! and the table's other keys are that variant's fields.
//!
//! serde's internally tagged enums (`#[serde(tag = "kind")]`) read the whole
//! table into a buffer before they look at `kind`, so an error in a field loses
//! its line and its path (`line 1: topology: invalid type ...` where the file says
//! `line 5: topology.delay`). Here the kind is read ahead ([`peek_kind`]: one
//! more parse of the text) and the table goes straight into the variant's struct,
//! as any other table does: an error stands where its value stands, and a key the
//! kind does not take is reported with that kind's fields.
//!
//! The enum keeps serde's default (externally tagged) derive: one newtype variant
//! per kind over a `deny_unknown_fields` struct of Option fields. [`read_file`]
//! reads the file's own struct and hands it the tagged table as that enum.

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, IntoDeserializer, MapAccess,
    VariantAccess, Visitor,
};
use std::fmt;
use std::marker::PhantomData;

/// The `kind` of the table at top-level `key`, when the text parses and it is a string.
pub(super) fn peek_kind(text: &str, key: &str) -> Option<String> {
    let doc: toml::Table = toml::from_str(text).ok()?;
    doc.get(key)?.get("kind")?.as_str().map(str::to_string)
}

/// Reads `F` from `d`, the table at top-level `key` as `E`'s variant `kind`
/// ([`peek_kind`]; `None` when there is none, which is then reported where it is).
pub(super) fn read_file<'de, F, E, D>(
    d: D,
    key: &'static str,
    kind: Option<String>,
) -> Result<F, D::Error>
where
    F: Deserialize<'de>,
    E: Deserialize<'de>,
    D: Deserializer<'de>,
{
    d.deserialize_map(FileVisitor::<F, E> {
        key,
        kind,
        _types: PhantomData,
    })
}

struct FileVisitor<F, E> {
    key: &'static str,
    kind: Option<String>,
    _types: PhantomData<(F, E)>,
}

impl<'de, F: Deserialize<'de>, E: Deserialize<'de>> Visitor<'de> for FileVisitor<F, E> {
    type Value = F;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<F, A::Error> {
        F::deserialize(MapAccessDeserializer::new(TopLevel::<A, E> {
            map,
            key: self.key,
            kind: self.kind,
            at_key: false,
            _enum: PhantomData,
        }))
    }
}

/// The file's keys as they are, but the value at `key` is read kind-tagged.
struct TopLevel<A, E> {
    map: A,
    key: &'static str,
    kind: Option<String>,
    /// The key just read is `key`.
    at_key: bool,
    _enum: PhantomData<E>,
}

impl<'de, A: MapAccess<'de>, E: Deserialize<'de>> MapAccess<'de> for TopLevel<A, E> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let key = self.map.next_key_seed(NoteKey(seed, self.key))?;
        Ok(key.map(|(k, at_key)| {
            self.at_key = at_key;
            k
        }))
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        if !self.at_key {
            return self.map.next_value_seed(seed);
        }
        self.map.next_value_seed(TaggedSeed::<V, E> {
            seed,
            kind: self.kind.take(),
            _enum: PhantomData,
        })
    }
}

/// A key as the file's struct reads it, and whether it is the tagged table's.
struct NoteKey<K>(K, &'static str);

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for NoteKey<K> {
    type Value = (K::Value, bool);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for NoteKey<K> {
    type Value = (K::Value, bool);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<Er: de::Error>(self, s: &str) -> Result<Self::Value, Er> {
        Ok((self.0.deserialize(s.into_deserializer())?, s == self.1))
    }
}

/// The tagged table's value: `seed` (which reads `E`) sees it as an enum.
struct TaggedSeed<S, E> {
    seed: S,
    kind: Option<String>,
    _enum: PhantomData<E>,
}

impl<'de, S: DeserializeSeed<'de>, E: Deserialize<'de>> DeserializeSeed<'de> for TaggedSeed<S, E> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(TaggedTable::<D, E> {
            d,
            kind: self.kind,
            _enum: PhantomData,
        })
    }
}

struct TaggedTable<D, E> {
    d: D,
    kind: Option<String>,
    _enum: PhantomData<E>,
}

impl<'de, D: Deserializer<'de>, E: Deserialize<'de>> Deserializer<'de> for TaggedTable<D, E> {
    type Error = D::Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.d.deserialize_map(TableVisitor::<V, E> {
            visitor,
            kind: self.kind,
            _enum: PhantomData,
        })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct TableVisitor<V, E> {
    visitor: V,
    kind: Option<String>,
    _enum: PhantomData<E>,
}

impl<'de, V: Visitor<'de>, E: Deserialize<'de>> Visitor<'de> for TableVisitor<V, E> {
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table with a `kind` key")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let mut fields = Fields::<A, E> {
            map,
            kind: self.kind.unwrap_or_default(),
            names: &[],
            _enum: PhantomData,
        };
        self.visitor.visit_enum(Variant {
            fields: &mut fields,
        })
    }
}

/// The table without `kind`, read by the variant's struct; a key it does not
/// take fails at that key's value.
struct Fields<A, E> {
    map: A,
    kind: String,
    /// The struct's fields (serde's derive names them).
    names: &'static [&'static str],
    _enum: PhantomData<E>,
}

impl<'de, A: MapAccess<'de>, E: Deserialize<'de>> Fields<A, E> {
    /// The error of the `kind` entry itself, read as `E` reads an enum (an
    /// unknown name, a number); without one, the first key no kind takes, or
    /// the missing `kind`.
    fn kind_error(&mut self, otherwise: A::Error) -> A::Error {
        let all = all_fields::<E>();
        loop {
            let key = match self.map.next_key::<String>() {
                Ok(Some(k)) => k,
                Ok(None) => return de::Error::missing_field("kind"),
                Err(e) => return e,
            };
            let read = if key == "kind" {
                self.map.next_value::<E>().map(|_| ())
            } else if !all.contains(&key.as_str()) {
                let msg = format!("unknown field `{key}`, expected one of {}", ticked(&all));
                self.fail(msg)
            } else {
                self.map.next_value::<IgnoredAny>().map(|_| ())
            };
            match read {
                Err(e) => return e,
                Ok(()) if key == "kind" => return otherwise,
                Ok(()) => {}
            }
        }
    }

    /// An error at the value of the key just read.
    fn fail(&mut self, msg: String) -> Result<(), A::Error> {
        match self.map.next_value_seed(Fail(msg)) {
            Err(e) => Err(e),
            Ok(never) => match never {},
        }
    }

    /// What is wrong with `key`, which this kind does not take.
    fn not_taken(&self, key: &str) -> String {
        let mut names = self.names.to_vec();
        names.sort_unstable();
        if all_fields::<E>().contains(&key) {
            let names = names.join(", ");
            format!(
                "is not used with kind = \"{}\" (its fields: {names})",
                self.kind
            )
        } else {
            let names = ticked(&names);
            let kind = &self.kind;
            format!(
                "unknown field `{key}`, expected one of {names} (the fields of kind = \"{kind}\")"
            )
        }
    }
}

/// `a`, `b`, `c` as serde lists names.
fn ticked(names: &[&str]) -> String {
    let ticked: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    ticked.join(", ")
}

impl<'de, A: MapAccess<'de>, E: Deserialize<'de>> MapAccess<'de> for &mut Fields<A, E> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        while let Some(key) = self.map.next_key::<String>()? {
            if key == "kind" {
                self.map.next_value::<IgnoredAny>()?;
            } else if self.names.contains(&key.as_str()) {
                return seed.deserialize(key.into_deserializer()).map(Some);
            } else {
                let msg = self.not_taken(&key);
                return self.fail(msg).map(|()| None);
            }
        }
        Ok(None)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// Fails with its message where the value stands (its line, its path).
struct Fail(String);

enum Never {}

impl<'de> DeserializeSeed<'de> for Fail {
    type Value = Never;
    fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<Never, D::Error> {
        Err(de::Error::custom(self.0))
    }
}

/// The enum's variant from the kind read ahead, its fields from the table.
struct Variant<'f, A, E> {
    fields: &'f mut Fields<A, E>,
}

impl<'de, A: MapAccess<'de>, E: Deserialize<'de>> EnumAccess<'de> for Variant<'_, A, E> {
    type Error = A::Error;
    type Variant = Self;
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), A::Error> {
        let kind = self.fields.kind.clone();
        match seed.deserialize(kind.into_deserializer()) {
            Ok(v) => Ok((v, self)),
            Err(e) => Err(self.fields.kind_error(e)),
        }
    }
}

impl<'de, A: MapAccess<'de>, E: Deserialize<'de>> VariantAccess<'de> for Variant<'_, A, E> {
    type Error = A::Error;
    fn unit_variant(self) -> Result<(), A::Error> {
        Err(de::Error::custom("a kind without fields is not a table"))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        seed.deserialize(VariantStruct(self.fields))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, A::Error> {
        Err(de::Error::custom("a kind's fields are named"))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        names: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.fields.names = names;
        visitor.visit_map(self.fields)
    }
}

/// The variant's struct, read from the table's fields.
struct VariantStruct<'f, A, E>(&'f mut Fields<A, E>);

impl<'de, A: MapAccess<'de>, E: Deserialize<'de>> Deserializer<'de> for VariantStruct<'_, A, E> {
    type Error = A::Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self.0)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        names: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.names = names;
        visitor.visit_map(self.0)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// `kind` and the fields of every variant of `E`, each once, in the order
/// declared (serde's derive names them when it is asked for a variant's struct).
fn all_fields<'de, E: Deserialize<'de>>() -> Vec<&'static str> {
    let mut variants: &'static [&'static str] = &[];
    let mut fields = vec!["kind"];
    let mut probe = |variant, variants: &mut &'static [&'static str]| {
        let p = Probe {
            variant,
            variants,
            fields: &mut fields,
        };
        // It always fails: it stops at the struct once it has its fields.
        let _ = E::deserialize(p);
    };
    probe(None, &mut variants);
    for &v in variants {
        probe(Some(v), &mut &[][..]);
    }
    fields
}

/// Asks `E`'s derive for its variants (without `variant`) or for `variant`'s fields.
struct Probe<'o> {
    variant: Option<&'static str>,
    variants: &'o mut &'static [&'static str],
    fields: &'o mut Vec<&'static str>,
}

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = de::value::Error;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom(
            "a probe reads only an enum's variants and fields",
        ))
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.variants = variants;
        match self.variant {
            None => self.deserialize_any(visitor),
            Some(_) => visitor.visit_enum(self),
        }
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        names: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        for n in names {
            if !self.fields.contains(n) {
                self.fields.push(n);
            }
        }
        self.deserialize_any(visitor)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for Probe<'_> {
    type Error = de::value::Error;
    type Variant = Self;
    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self), Self::Error> {
        let name = self.variant.unwrap_or_default();
        Ok((seed.deserialize(name.into_deserializer())?, self))
    }
}

impl<'de> VariantAccess<'de> for Probe<'_> {
    type Error = de::value::Error;
    fn unit_variant(self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, Self::Error> {
        self.deserialize_any(v)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        names: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_struct("", names, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        #[serde(rename = "seed")]
        _seed: Option<u64>,
        shape: Shape,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "kebab-case")]
    enum Shape {
        Square(Square),
        Circle(Circle),
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Square {
        side: Option<u32>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Circle {
        radius: Option<u32>,
        filled: Option<bool>,
    }

    /// (path, line, message) of reading `text`, or its `shape`.
    fn read(text: &str) -> Result<Shape, (String, usize, String)> {
        let mut track = serde_path_to_error::Track::new();
        let de = serde_path_to_error::Deserializer::new(toml::Deserializer::new(text), &mut track);
        let kind = peek_kind(text, "shape");
        match read_file::<File, Shape, _>(de, "shape", kind) {
            Ok(f) => Ok(f.shape),
            Err(e) => {
                let line = e
                    .span()
                    .map_or(0, |s| text[..s.start].matches('\n').count() + 1);
                Err((track.path().to_string(), line, e.message().to_string()))
            }
        }
    }

    fn err(path: &str, line: usize, msg: &str) -> Result<Shape, (String, usize, String)> {
        Err((path.to_string(), line, msg.to_string()))
    }

    #[test]
    fn the_kind_picks_the_variant_wherever_it_stands_in_the_table() {
        let want = Shape::Circle(Circle {
            radius: Some(2),
            filled: None,
        });
        assert_eq!(read("[shape]\nkind = \"circle\"\nradius = 2\n"), Ok(want));
        let want = Shape::Square(Square { side: Some(3) });
        assert_eq!(
            read("seed = 1\n[shape]\nside = 3\nkind = \"square\"\n"),
            Ok(want)
        );
        let inline = read("shape = { side = 4, kind = \"square\" }\n");
        assert_eq!(inline, Ok(Shape::Square(Square { side: Some(4) })));
    }

    #[test]
    fn a_bad_field_is_reported_at_its_line_and_path_before_or_after_the_kind() {
        let msg = "invalid type: string \"x\", expected u32";
        assert_eq!(
            read("[shape]\nkind = \"square\"\nside = \"x\"\n"),
            err("shape.side", 3, msg)
        );
        assert_eq!(
            read("[shape]\nside = \"x\"\nkind = \"square\"\n"),
            err("shape.side", 2, msg)
        );
    }

    #[test]
    fn a_field_of_another_kind_names_this_kinds_fields() {
        let msg = "is not used with kind = \"circle\" (its fields: filled, radius)";
        assert_eq!(
            read("[shape]\nside = 1\nkind = \"circle\"\n"),
            err("shape.side", 2, msg)
        );
    }

    #[test]
    fn a_key_no_kind_takes_is_an_unknown_field() {
        let msg = "unknown field `sid`, expected one of `side` (the fields of kind = \"square\")";
        assert_eq!(
            read("[shape]\nkind = \"square\"\nsid = 1\n"),
            err("shape.sid", 3, msg)
        );
        let msg = "unknown field `kid`, expected one of `kind`, `side`, `radius`, `filled`";
        assert_eq!(
            read("[shape]\nkid = \"square\"\n"),
            err("shape.kid", 2, msg)
        );
    }

    #[test]
    fn a_bad_or_missing_kind_is_reported_as_serde_reports_an_enum() {
        let msg = "unknown variant `oval`, expected `square` or `circle`";
        assert_eq!(
            read("[shape]\nside = 1\nkind = \"oval\"\n"),
            err("shape.kind", 3, msg)
        );
        assert_eq!(
            read("[shape]\nkind = 5\n"),
            err("shape.kind", 2, "wanted string or table")
        );
        assert_eq!(
            read("[shape]\nside = 1\n"),
            err("shape", 1, "missing field `kind`")
        );
        let msg = "invalid type: integer `5`, expected a table with a `kind` key";
        assert_eq!(read("shape = 5\n"), err("shape", 1, msg));
    }

    #[test]
    fn the_files_own_keys_are_read_as_the_derive_reads_them() {
        let msg = "unknown field `sed`, expected `seed` or `shape`";
        assert_eq!(
            read("sed = 1\n[shape]\nkind = \"square\"\n"),
            err("sed", 1, msg)
        );
        assert_eq!(read("seed = 1\n"), err(".", 1, "missing field `shape`"));
    }
}
