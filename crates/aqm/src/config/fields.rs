//! A configuration's fields, declared once: [`config_struct!`] writes the struct, its
//! defaults, the reading of one key at a time ([`Fields::set`]) and the description of
//! every key ([`Param`]: name, type, documentation) that the Python classes and the docs
//! are generated from. Each AQM's file declares its configuration with it.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

use super::table::Value;
use crate::error::Result;
use crate::units::Quantity;

/// A configuration whose fields are set one key at a time.
pub trait Fields {
    /// Append the keys it reads, in the order they are documented (and serialized).
    fn keys(&self, out: &mut Vec<&'static str>);
    /// Set the field named `key` from `value`: `Ok(false)` if no field has that name,
    /// an error (without a path) if the value does not fit the field.
    fn set(&mut self, key: &str, value: &Value) -> Result<bool>;
    /// Append the description of every key, in the order of [`Fields::keys`].
    fn describe(&self, out: &mut Vec<Param>);
}

/// One key of a configuration, described for callers in other languages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The key (`min_th`).
    pub name: &'static str,
    /// Its Python annotation (`float`, `Optional[int]`, `Union[float, str]`,
    /// `Literal["uniform", "geometric"]`).
    pub py_type: String,
    /// Its documentation: the field's doc comment, lines joined by spaces.
    pub doc: String,
}

/// What a parameter's Rust type is to a caller in Python (the annotations of the
/// generated classes). Every type a [`config_struct!`] field has implements it.
pub trait ParamType {
    /// The Python annotation.
    fn py_type() -> String;
}

impl ParamType for f64 {
    fn py_type() -> String {
        "float".into()
    }
}
impl ParamType for bool {
    fn py_type() -> String {
        "bool".into()
    }
}
impl ParamType for u32 {
    fn py_type() -> String {
        "int".into()
    }
}
impl ParamType for u64 {
    fn py_type() -> String {
        "int".into()
    }
}
/// A number of SI units or a string with a unit.
impl ParamType for Quantity {
    fn py_type() -> String {
        "Union[float, str]".into()
    }
}
impl<T: ParamType> ParamType for Option<T> {
    fn py_type() -> String {
        format!("Optional[{}]", T::py_type())
    }
}

/// The Python annotation of an enum written as its variants' names (`mark_method =
/// "geometric"`): `Literal["uniform", "geometric", ...]`, the names as serde reads them.
pub fn enum_py_type<T: DeserializeOwned>() -> String {
    let names = variant_names::<T>();
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    format!("Literal[{}]", quoted.join(", "))
}

/// The names serde reads an enum's variants by (its `rename_all` applied), asked of its
/// `Deserialize` without reading anything.
pub fn variant_names<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Probe(&'static [&'static str]);
    #[derive(Debug)]
    struct Found;
    impl std::fmt::Display for Found {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("variants found")
        }
    }
    impl std::error::Error for Found {}
    impl de::Error for Found {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Found
        }
    }
    impl<'de> Deserializer<'de> for &mut Probe {
        type Error = Found;
        fn deserialize_any<V: Visitor<'de>>(self, _v: V) -> std::result::Result<V::Value, Found> {
            Err(Found)
        }
        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _name: &'static str,
            variants: &'static [&'static str],
            _v: V,
        ) -> std::result::Result<V::Value, Found> {
            self.0 = variants;
            Err(Found)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
            identifier ignored_any
        }
    }
    let mut probe = Probe(&[]);
    let _ = T::deserialize(&mut probe);
    probe.0
}

/// [`ParamType`] of an enum, `Literal[...]` of its variant names: `param_enum!(MarkMethod);`
/// beside the enum.
macro_rules! param_enum {
    ($t:ty) => {
        impl $crate::config::fields::ParamType for $t {
            fn py_type() -> String {
                $crate::config::fields::enum_py_type::<$t>()
            }
        }
    };
}
pub(crate) use param_enum;

/// The doc comment lines of a field or struct, joined by spaces and trimmed.
pub fn doc_text(lines: &[&str]) -> String {
    lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Declare a configuration struct, each field with its default and doc comment, and read
/// and describe it by key ([`Fields`]). An optional `..name: Type = default,` entry
/// embeds a shared struct of fields: its keys are read from the same table and
/// serialized in its place. The struct's doc comment is also `Self::DOC`.
macro_rules! config_struct {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident {
            $( $(#[doc = $fdoc:literal])* $field:ident : $ty:ty = $default:expr, )*
            $( ..$shared:ident : $sty:ty = $sdefault:expr,
               $( $(#[doc = $pdoc:literal])* $post:ident : $pty:ty = $pdefault:expr, )* )?
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        pub struct $name {
            $( $(#[doc = $fdoc])* pub $field: $ty, )*
            $(
                #[serde(flatten)]
                pub $shared: $sty,
                $( $(#[doc = $pdoc])* pub $post: $pty, )*
            )?
        }

        impl $name {
            /// The struct's documentation (its doc comment, lines joined).
            pub const DOC: &'static [&'static str] = &[$($sdoc),*];
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    $( $field: $default, )*
                    $( $shared: $sdefault, $( $post: $pdefault, )* )?
                }
            }
        }

        impl $crate::config::fields::Fields for $name {
            fn keys(&self, out: &mut Vec<&'static str>) {
                $( out.push(stringify!($field)); )*
                $(
                    self.$shared.keys(out);
                    $( out.push(stringify!($post)); )*
                )?
            }
            fn set(
                &mut self,
                key: &str,
                value: &$crate::config::table::Value,
            ) -> $crate::error::Result<bool> {
                match key {
                    $( stringify!($field) => self.$field = serde::Deserialize::deserialize(value)?, )*
                    $(
                        $( stringify!($post) => {
                            self.$post = serde::Deserialize::deserialize(value)?
                        } )*
                        _ => return self.$shared.set(key, value),
                    )?
                    #[allow(unreachable_patterns)]
                    _ => return Ok(false),
                }
                Ok(true)
            }
            fn describe(&self, out: &mut Vec<$crate::config::fields::Param>) {
                use $crate::config::fields::{Param, ParamType, doc_text};
                $( out.push(Param {
                    name: stringify!($field),
                    py_type: <$ty as ParamType>::py_type(),
                    doc: doc_text(&[$($fdoc),*]),
                }); )*
                $(
                    self.$shared.describe(out);
                    $( out.push(Param {
                        name: stringify!($post),
                        py_type: <$pty as ParamType>::py_type(),
                        doc: doc_text(&[$($pdoc),*]),
                    }); )*
                )?
            }
        }
    };
}
pub(crate) use config_struct;
