//! A `Serialize` value (a run's summary) as the tree of the Python values `pythonize`
//! makes of it, built in Rust: the files written from the tree ([`crate::pyjson`],
//! [`crate::parquet`]) are those written from the Python dict, without building it.
//!
//! The mapping is `pythonize`'s: integers -> int, floats -> float, `char` and strings ->
//! str, `None` and unit -> None, `Some(x)` and newtype structs -> `x`, a unit variant ->
//! its name, sequences and tuples -> list (a tuple's JSON is a list's), maps and structs
//! -> dict (keys in the order serialized), a newtype, tuple or struct variant -> a
//! one-key dict `{variant: value}`. Not taken (an error, for the caller to go through
//! Python): bytes, and map keys other than strings, chars and integers (Python's `json`
//! writes an int key as its digits, which is how the tree keeps it). A map is taken to
//! serialize each key once, as Rust's maps do.

use std::borrow::Cow;

use serde::ser::{self, Serialize};

/// A Python value of the summary's kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    List(Vec<Tree>),
    /// A dict: its keys (as JSON writes them; a struct's field names borrowed) and
    /// values, in order.
    Map(Vec<(Cow<'static, str>, Tree)>),
}

impl Tree {
    /// The value under `key` of a dict.
    pub fn get(&self, key: &str) -> Option<&Tree> {
        match self {
            Tree::Map(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// What the tree does not take.
#[derive(Debug)]
pub struct Unsupported(String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Unsupported(msg.to_string())
    }
}

type Result<T> = std::result::Result<T, Unsupported>;

/// `value` as a tree.
pub fn to_tree<T: Serialize + ?Sized>(value: &T) -> Result<Tree> {
    value.serialize(TreeSerializer)
}

/// `{variant: value}`.
fn variant_of(variant: &'static str, value: Tree) -> Tree {
    Tree::Map(vec![(Cow::Borrowed(variant), value)])
}

/// Builds the tree of one value.
pub struct TreeSerializer;

/// A list being built (of a tuple variant when `variant` is set).
pub struct ListBuilder {
    items: Vec<Tree>,
    variant: Option<&'static str>,
}

/// A dict being built (of a struct variant when `variant` is set).
pub struct MapBuilder {
    items: Vec<(Cow<'static, str>, Tree)>,
    key: Option<Cow<'static, str>>,
    variant: Option<&'static str>,
}

impl ListBuilder {
    fn done(self) -> Tree {
        let list = Tree::List(self.items);
        match self.variant {
            Some(v) => variant_of(v, list),
            None => list,
        }
    }
}

impl MapBuilder {
    fn new(len: Option<usize>, variant: Option<&'static str>) -> Self {
        MapBuilder { items: Vec::with_capacity(len.unwrap_or(0)), key: None, variant }
    }

    fn done(self) -> Tree {
        let map = Tree::Map(self.items);
        match self.variant {
            Some(v) => variant_of(v, map),
            None => map,
        }
    }
}

impl ser::Serializer for TreeSerializer {
    type Ok = Tree;
    type Error = Unsupported;
    type SerializeSeq = ListBuilder;
    type SerializeTuple = ListBuilder;
    type SerializeTupleStruct = ListBuilder;
    type SerializeTupleVariant = ListBuilder;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = MapBuilder;

    fn serialize_bool(self, v: bool) -> Result<Tree> {
        Ok(Tree::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Tree> {
        Ok(Tree::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Tree> {
        Ok(Tree::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Tree> {
        Ok(Tree::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Tree> {
        Ok(Tree::Int(v.into()))
    }
    fn serialize_i128(self, v: i128) -> Result<Tree> {
        Ok(Tree::Int(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Tree> {
        Ok(Tree::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Tree> {
        Ok(Tree::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Tree> {
        Ok(Tree::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Tree> {
        Ok(Tree::Int(v.into()))
    }
    fn serialize_u128(self, v: u128) -> Result<Tree> {
        i128::try_from(v).map(Tree::Int).map_err(|_| Unsupported("an integer beyond i128".into()))
    }
    fn serialize_f32(self, v: f32) -> Result<Tree> {
        Ok(Tree::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Tree> {
        Ok(Tree::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Tree> {
        Ok(Tree::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Tree> {
        Ok(Tree::Str(v.to_string()))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<Tree> {
        Err(Unsupported("bytes".into()))
    }
    fn serialize_none(self) -> Result<Tree> {
        Ok(Tree::None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Tree> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Tree> {
        Ok(Tree::None)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Tree> {
        Ok(Tree::None)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Tree> {
        Ok(Tree::Str(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Tree> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Tree> {
        Ok(variant_of(variant, value.serialize(self)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<ListBuilder> {
        Ok(ListBuilder { items: Vec::with_capacity(len.unwrap_or(0)), variant: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<ListBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<ListBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<ListBuilder> {
        Ok(ListBuilder { items: Vec::with_capacity(len), variant: Some(variant) })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder> {
        Ok(MapBuilder::new(len, None))
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<MapBuilder> {
        Ok(MapBuilder::new(Some(len), None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<MapBuilder> {
        Ok(MapBuilder::new(Some(len), Some(variant)))
    }
}

impl ser::SerializeSeq for ListBuilder {
    type Ok = Tree;
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.items.push(value.serialize(TreeSerializer)?);
        Ok(())
    }
    fn end(self) -> Result<Tree> {
        Ok(self.done())
    }
}

impl ser::SerializeTuple for ListBuilder {
    type Ok = Tree;
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Tree> {
        Ok(self.done())
    }
}

impl ser::SerializeTupleStruct for ListBuilder {
    type Ok = Tree;
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Tree> {
        Ok(self.done())
    }
}

impl ser::SerializeTupleVariant for ListBuilder {
    type Ok = Tree;
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Tree> {
        Ok(self.done())
    }
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Tree;
    type Error = Unsupported;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key = Some(match key.serialize(TreeSerializer)? {
            Tree::Str(s) => Cow::Owned(s),
            Tree::Int(i) => Cow::Owned(i.to_string()),
            other => return Err(Unsupported(format!("a map key {other:?}"))),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = self.key.take().ok_or_else(|| Unsupported("a value without a key".into()))?;
        self.items.push((key, value.serialize(TreeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Tree> {
        Ok(self.done())
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Tree;
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.items.push((Cow::Borrowed(key), value.serialize(TreeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Tree> {
        Ok(self.done())
    }
}

impl ser::SerializeStructVariant for MapBuilder {
    type Ok = Tree;
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<Tree> {
        Ok(self.done())
    }
}
