//! OPC UA values and names as the wire writes them (plain functions, no I/O): a value
//! as text (what a cycle's metadata holds), whether it counts as true (what fires a
//! trigger, `mqtt::v1::OpcuaRole`), a standard data type's name, a node class, and when
//! a node's new value fires its triggers ([`Edges`]).

use std::collections::HashMap;

use gemba_shared::mqtt::v1::OpcuaNodeClass;
use gemba_shared::mqtt::v1::opcua::{MAX_TEXT_BYTES, cut};
use opcua::types::{NodeClass, NodeId, Variant};

/// Most elements of an array written out.
const ARRAY_SHOWN: usize = 20;

/// `v` as text, at most `MAX_TEXT_BYTES`; `None` when empty.
pub fn value_text(v: &Variant) -> Option<String> {
    let text = match v {
        Variant::Empty => return None,
        Variant::LocalizedText(t) => t.text.to_string(),
        Variant::QualifiedName(q) => q.name.to_string(),
        Variant::StatusCode(s) => s.to_string(),
        Variant::Array(a) => {
            let shown: Vec<String> = a
                .values
                .iter()
                .take(ARRAY_SHOWN)
                .map(|x| value_text(x).unwrap_or_default())
                .collect();
            let more = if a.values.len() > ARRAY_SHOWN {
                ", …"
            } else {
                ""
            };
            format!("[{}{more}]", shown.join(", "))
        }
        other => other.to_string(),
    };
    Some(cut(&text, MAX_TEXT_BYTES))
}

/// Does `v` count as true: a Boolean true, a number not 0, a text not empty, `0` or
/// `false` (any case); anything else that has a value.
pub fn truthy(v: &Variant) -> bool {
    match v {
        Variant::Empty => false,
        Variant::Boolean(b) => *b,
        Variant::SByte(x) => *x != 0,
        Variant::Byte(x) => *x != 0,
        Variant::Int16(x) => *x != 0,
        Variant::UInt16(x) => *x != 0,
        Variant::Int32(x) => *x != 0,
        Variant::UInt32(x) => *x != 0,
        Variant::Int64(x) => *x != 0,
        Variant::UInt64(x) => *x != 0,
        Variant::Float(x) => *x != 0.0 && !x.is_nan(),
        Variant::Double(x) => *x != 0.0 && !x.is_nan(),
        other => value_text(other).is_some_and(|t| {
            let t = t.trim();
            !t.is_empty() && t != "0" && !t.eq_ignore_ascii_case("false")
        }),
    }
}

/// When a node's new value fires its triggers: when it changed to a true one (see
/// `mqtt::v1::OpcuaRole`). The first value a link hears of a node (on subscribing,
/// again after a reconnection: [`Edges::reset`]) fires nothing.
#[derive(Debug, Default)]
pub struct Edges {
    last: HashMap<String, Option<String>>,
}

impl Edges {
    /// A new session: each node's next value is its first.
    pub fn reset(&mut self) {
        self.last.clear();
    }

    /// `node` now holds `text` (`truthy`: whether that value counts as true).
    pub fn fires(&mut self, node: &str, text: Option<&str>, truthy: bool) -> bool {
        match self.last.insert(node.to_string(), text.map(str::to_string)) {
            None => false,
            Some(before) => truthy && before.as_deref() != text,
        }
    }
}

/// The name of a standard data type (namespace 0), else the type's node id.
pub fn data_type_name(id: &NodeId) -> String {
    let standard = match (id.namespace, id.as_u32()) {
        (0, Some(n)) => match n {
            1 => Some("Boolean"),
            2 => Some("SByte"),
            3 => Some("Byte"),
            4 => Some("Int16"),
            5 => Some("UInt16"),
            6 => Some("Int32"),
            7 => Some("UInt32"),
            8 => Some("Int64"),
            9 => Some("UInt64"),
            10 => Some("Float"),
            11 => Some("Double"),
            12 => Some("String"),
            13 => Some("DateTime"),
            14 => Some("Guid"),
            15 => Some("ByteString"),
            16 => Some("XmlElement"),
            17 => Some("NodeId"),
            18 => Some("ExpandedNodeId"),
            19 => Some("StatusCode"),
            20 => Some("QualifiedName"),
            21 => Some("LocalizedText"),
            22 => Some("Structure"),
            24 => Some("BaseDataType"),
            26 => Some("Number"),
            27 => Some("Integer"),
            28 => Some("UInteger"),
            29 => Some("Enumeration"),
            _ => None,
        },
        _ => None,
    };
    standard.map_or_else(|| id.to_string(), str::to_string)
}

/// The wire's node class.
pub fn node_class(c: NodeClass) -> Option<OpcuaNodeClass> {
    Some(match c {
        NodeClass::Object => OpcuaNodeClass::Object,
        NodeClass::Variable => OpcuaNodeClass::Variable,
        NodeClass::Method => OpcuaNodeClass::Method,
        NodeClass::ObjectType => OpcuaNodeClass::ObjectType,
        NodeClass::VariableType => OpcuaNodeClass::VariableType,
        NodeClass::ReferenceType => OpcuaNodeClass::ReferenceType,
        NodeClass::DataType => OpcuaNodeClass::DataType,
        NodeClass::View => OpcuaNodeClass::View,
        _ => return None,
    })
}

/// The wire's node class of OPC UA's number for it (the `NodeClass` attribute).
pub fn node_class_number(n: i32) -> Option<OpcuaNodeClass> {
    Some(match n {
        1 => OpcuaNodeClass::Object,
        2 => OpcuaNodeClass::Variable,
        4 => OpcuaNodeClass::Method,
        8 => OpcuaNodeClass::ObjectType,
        16 => OpcuaNodeClass::VariableType,
        32 => OpcuaNodeClass::ReferenceType,
        64 => OpcuaNodeClass::DataType,
        128 => OpcuaNodeClass::View,
        _ => return None,
    })
}

/// A browse name as OPC UA writes it: `2:PartNumber`, the index left out for 0.
pub fn browse_name(namespace: u16, name: &str) -> String {
    let name = cut(name, MAX_TEXT_BYTES - 6);
    if namespace == 0 {
        name
    } else {
        format!("{namespace}:{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_text_and_truth() {
        assert_eq!(value_text(&Variant::Double(12.5)).as_deref(), Some("12.5"));
        assert_eq!(value_text(&Variant::Int32(-3)).as_deref(), Some("-3"));
        assert_eq!(value_text(&Variant::Boolean(true)).as_deref(), Some("true"));
        assert_eq!(
            value_text(&Variant::from("P-100")).as_deref(),
            Some("P-100")
        );
        assert_eq!(value_text(&Variant::Empty), None);
        let long = Variant::from("é".repeat(MAX_TEXT_BYTES));
        assert!(value_text(&long).unwrap().len() <= MAX_TEXT_BYTES);
        let array = Variant::from(vec![1i32, 2, 3]);
        assert_eq!(value_text(&array).as_deref(), Some("[1, 2, 3]"));

        for yes in [
            Variant::Boolean(true),
            Variant::Int32(5),
            Variant::UInt64(1),
            Variant::Double(0.1),
            Variant::from("go"),
        ] {
            assert!(truthy(&yes), "{yes:?}");
        }
        for no in [
            Variant::Boolean(false),
            Variant::Int16(0),
            Variant::Double(0.0),
            Variant::Float(f32::NAN),
            Variant::from(""),
            Variant::from("0"),
            Variant::from("FALSE"),
            Variant::Empty,
        ] {
            assert!(!truthy(&no), "{no:?}");
        }
    }

    #[test]
    fn a_trigger_fires_when_its_value_turns_true_and_not_on_the_first() {
        let mut e = Edges::default();
        // Found true on subscribing: nothing.
        assert!(!e.fires("start", Some("true"), true));
        assert!(!e.fires("start", Some("false"), false));
        assert!(e.fires("start", Some("true"), true));
        // The same value again (a status change) is not a new edge.
        assert!(!e.fires("start", Some("true"), true));
        // A counter counting up fires at each count; back to 0 does not.
        assert!(!e.fires("count", Some("5"), true));
        assert!(e.fires("count", Some("6"), true));
        assert!(!e.fires("count", Some("0"), false));
        assert!(e.fires("count", Some("1"), true));
        // A new session: the first value again fires nothing.
        e.reset();
        assert!(!e.fires("count", Some("2"), true));
        assert!(e.fires("count", Some("3"), true));
        // No value then a true one: a change.
        assert!(!e.fires("x", None, false));
        assert!(e.fires("x", Some("true"), true));
    }

    #[test]
    fn names_of_types_classes_and_browse_names() {
        assert_eq!(data_type_name(&NodeId::new(0, 11u32)), "Double");
        assert_eq!(data_type_name(&NodeId::new(0, 12u32)), "String");
        assert_eq!(data_type_name(&NodeId::new(2, 11u32)), "ns=2;i=11");
        assert_eq!(data_type_name(&NodeId::new(0, 9999u32)), "i=9999");
        assert_eq!(
            node_class(NodeClass::Variable),
            Some(OpcuaNodeClass::Variable)
        );
        assert_eq!(node_class(NodeClass::Unspecified), None);
        assert_eq!(node_class_number(2), Some(OpcuaNodeClass::Variable));
        assert_eq!(node_class_number(3), None);
        assert_eq!(browse_name(2, "Torque"), "2:Torque");
        assert_eq!(browse_name(0, "Objects"), "Objects");
    }
}
