//! The plan: everything about the struct and each field that more than one generator needs,
//! computed once from the model. The generators (`write`, `size`, `read`, `tagged`, `meta`)
//! only read it.

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;

use super::names::Idents;
use super::{rt, values};
use crate::model::{Field, Kind, Struct};
use crate::range::Range;

/// The most fields one run groups (the runtime implements runs of up to eight).
const MAX_RUN_FIELDS: usize = 8;
/// The most bytes one run groups (the runtime's run buffer).
const MAX_RUN_BYTES: usize = 64;

/// Whether a field is a regular (untagged) field at the struct's versions, and when.
pub enum Regular {
    /// Never (tagged in all its versions, or absent).
    Never,
    /// In every version of the struct.
    Always,
    /// Behind this version gate.
    When(TokenStream),
}

/// One field, as the generators see it.
pub struct FieldPlan<'a> {
    pub field: &'a Field,
    /// Its position among the struct's fields (error paths, tagged flags), as a literal.
    pub index: Literal,
    /// The span errors about the field point at: its type.
    pub span: Span,
    /// Its default as a Rust value of its type.
    pub default: TokenStream,
    /// The struct context for its regular versions (`plan::field_st`).
    pub st: TokenStream,
    pub regular: Regular,
    /// Its wire width, when its type is written as a fixed-width primitive.
    pub width: Option<usize>,
    /// Whether decoding it may allocate (fixed-width types never do).
    pub allocates: bool,
    /// The runtime templates it is written, sized and read with (inline or out of line).
    pub template: rt::Template,
    /// As Java's MessageDataGenerator (generateNonIgnorableFieldCheck): the versions of the
    /// struct in which a non-default value is an error, when there are some and the field is
    /// not ignorable.
    pub absent_gate: Option<TokenStream>,
    /// Whether it is nullable in its tagged versions.
    pub tagged_nullable: bool,
}

impl FieldPlan<'_> {
    /// The gate of a regular field (`None` when always present or never regular).
    pub fn gate(&self) -> Option<&TokenStream> {
        match &self.regular {
            Regular::When(g) => Some(g),
            _ => None,
        }
    }
}

/// A piece of the regular fields in wire order.
pub enum Piece {
    /// One field, by index.
    Field(usize),
    /// A run of adjacent fixed-width fields: first index, length.
    Run(usize, usize),
}

/// The struct, planned.
pub struct Plan<'a> {
    pub s: &'a Struct,
    pub n: Idents,
    pub fields: Vec<FieldPlan<'a>>,
    /// The regular fields in wire order, runs as one piece each.
    pub order: Vec<Piece>,
    /// The declared tagged fields in tag order, by index.
    pub tagged: Vec<usize>,
    /// Whether the struct's last run writes the tagged section's count (`StructCx::put_run_tags`):
    /// it ends the struct, is present in every version, and the section holds only unknown
    /// fields.
    pub tags_with_run: bool,
}

impl<'a> Plan<'a> {
    pub fn new(s: &'a Struct) -> Self {
        let n = Idents::new();
        let fields: Vec<FieldPlan<'a>> = s
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| field_plan(&n, s, i, f))
            .collect();
        let runs = runs(s, &fields);
        let order = order(fields.len(), &runs);
        let mut tagged: Vec<usize> = (0..fields.len())
            .filter(|&i| s.fields[i].tag.is_some())
            .collect();
        tagged.sort_by_key(|&i| s.fields[i].tag);
        let tags_with_run = s.unknown.is_some()
            && tagged.is_empty()
            && runs.last().is_some_and(|&(first, len)| {
                first + len == fields.len()
                    && fields
                        .get(first..)
                        .unwrap_or_default()
                        .iter()
                        .all(|p| p.gate().is_none())
            });
        Plan {
            s,
            n,
            fields,
            order,
            tagged,
            tags_with_run,
        }
    }

    /// The fields of a run.
    pub fn run(&self, first: usize, len: usize) -> &[FieldPlan<'a>] {
        // In range by construction (`runs` only makes runs with `first + len <= fields.len()`),
        // and this runs in the compiler, never on wire input; checked all the same.
        self.fields.get(first..first + len).unwrap_or_default()
    }

    /// The gates of a run's fields that are not in every version.
    pub fn run_gates(&self, first: usize, len: usize) -> Vec<&TokenStream> {
        self.run(first, len)
            .iter()
            .filter_map(FieldPlan::gate)
            .collect()
    }

    /// Whether the version is in `r`, knowing it is in the struct's versions.
    pub fn version_in_expr(&self, r: Range) -> TokenStream {
        version_in_expr(&self.n, r, self.s.versions)
    }
}

fn field_plan<'a>(n: &Idents, s: &Struct, i: usize, f: &'a Field) -> FieldPlan<'a> {
    let span = f.ty.span();
    let mandatory = f.mandatory().intersect(s.versions);
    let regular = if mandatory.is_empty() {
        Regular::Never
    } else {
        match version_in(n, mandatory, s.versions) {
            None => Regular::Always,
            Some(g) => Regular::When(g),
        }
    };
    let width = fixed_width(&f.ty);
    FieldPlan {
        field: f,
        index: Literal::usize_unsuffixed(i),
        span,
        default: values::default_value(f),
        st: field_st(n, s, f),
        regular,
        width,
        allocates: !matches!(
            f.kind,
            Kind::Bool | Kind::Int { .. } | Kind::F64 | Kind::Uuid
        ),
        // `outline` structs call each field's template (one copy per field type); the
        // others inline it, which is faster and compiles slower. Fixed-width fields stay
        // inline: a load or store and a bounds test, less than a call.
        template: rt::Template::new(s.outline && width.is_none(), span),
        absent_gate: (!f.ignorable)
            .then(|| version_in(n, f.versions, s.versions))
            .flatten(),
        tagged_nullable: !f.nullable.intersect(f.tagged).is_empty(),
    }
}

/// Whether the version is in `r`, knowing it is in `within`: `None` when always true.
fn version_in(n: &Idents, r: Range, within: Range) -> Option<TokenStream> {
    let v = rt::version(n);
    let r = r.intersect(within);
    if r.is_empty() {
        return Some(quote!(false));
    }
    let lo = (r.min > within.min).then(|| {
        let m = Literal::i16_unsuffixed(r.min);
        quote!(#v >= #m)
    });
    let hi = (r.max < within.max).then(|| {
        let m = Literal::i16_unsuffixed(r.max);
        quote!(#v <= #m)
    });
    match (lo, hi) {
        (None, None) => None,
        (Some(a), None) | (None, Some(a)) => Some(a),
        (Some(a), Some(b)) => Some(quote!(#a && #b)),
    }
}

/// `version_in` as a bool expression.
fn version_in_expr(n: &Idents, r: Range, within: Range) -> TokenStream {
    version_in(n, r, within).unwrap_or_else(|| quote!(true))
}

/// The struct context for field `f`'s regular versions: null allowed where it is nullable,
/// compact only where a field-level `flexible` says so.
fn field_st(n: &Idents, s: &Struct, f: &Field) -> TokenStream {
    let within = f.mandatory().intersect(s.versions);
    let mut out = rt::st(n);
    if f.option {
        out = rt::st_null(out, version_in_expr(n, f.nullable, within));
    }
    if let Some(fl) = f.flexible {
        out = rt::st_compact(out, version_in_expr(n, fl, within));
    }
    out
}

/// The wire width of a field type written as a fixed-width primitive (`i32`, not a path or
/// an alias: those go field by field).
fn fixed_width(ty: &syn::Type) -> Option<usize> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let id = p.path.get_ident()?;
    Some(match id.to_string().as_str() {
        "i8" => 1,
        "i16" | "u16" => 2,
        "i32" | "u32" => 4,
        "i64" | "f64" => 8,
        _ => return None,
    })
}

/// Runs (first index, length) of two or more adjacent untagged fixed-width fields present
/// in some version. A run is written with one `put_slice` and read with one bounds check
/// when all its fields are present; when some are not (a run with gated fields at an early
/// version), field by field. The second path earns its lines: a TxnOffsetCommit v5
/// partition is such a run, and reading it field by field cost about 25% more instructions
/// per message.
fn runs(s: &Struct, fields: &[FieldPlan]) -> Vec<(usize, usize)> {
    let runnable = |p: &FieldPlan| {
        p.field.tag.is_none() && !matches!(p.regular, Regular::Never) && p.width.is_some()
    };
    let mut runs = Vec::new();
    let mut i = 0;
    while i < s.fields.len() {
        let mut j = i;
        let mut width = 0;
        while j < fields.len()
            && j - i < MAX_RUN_FIELDS
            && runnable(&fields[j])
            && width + fields[j].width.unwrap_or(0) <= MAX_RUN_BYTES
        {
            width += fields[j].width.unwrap_or(0);
            j += 1;
        }
        if j - i >= 2 {
            runs.push((i, j - i));
            i = j;
        } else {
            i += 1;
        }
    }
    runs
}

/// The regular fields in wire order, each run as one piece.
fn order(len: usize, runs: &[(usize, usize)]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < len {
        match runs.iter().find(|(first, _)| *first == i) {
            Some(&(first, n)) => {
                out.push(Piece::Run(first, n));
                i = first + n;
            }
            None => {
                out.push(Piece::Field(i));
                i += 1;
            }
        }
    }
    out
}
