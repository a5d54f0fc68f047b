//! `write_vec`: each regular field in wire order (a run as one `put_slice`), then the tagged
//! section (`tagged.rs`).

use proc_macro2::{Delimiter, Group, Literal, TokenStream};
use quote::{quote, quote_spanned};

use super::plan::{FieldPlan, Piece, Plan, Regular};
use super::{rt, tagged};

/// The body of `write_vec`, braced (a group is interpolated without copying its tokens).
pub fn body(p: &Plan) -> Group {
    let st = &p.n.s;
    let new = rt::st_new(&p.n);
    let enc = rt::enc(&p.n);
    let kw = &p.n.kw;
    let writes = p.order.iter().map(|piece| match *piece {
        Piece::Field(i) => field(p, &p.fields[i]),
        Piece::Run(first, len) => run(p, first, len),
    });
    let tags = tagged::write(p);
    let body = quote! {
        let #st = #new;
        #enc
        #(#writes)*
        #tags
        #kw::Ok(())
    };
    Group::new(Delimiter::Brace, body)
}

/// An API message's `write_vec` has one caller, the message's `encode` (see `read::inline`).
pub fn inline(p: &Plan) -> Option<TokenStream> {
    p.s.api
        .map(|_| quote!(#[cfg_attr(not(debug_assertions), inline(always))]))
}

/// One regular field: written where the version has it, refused where it does not and the
/// value is not its default (unless ignorable).
fn field(p: &Plan, f: &FieldPlan) -> TokenStream {
    let absent = f.absent_gate.as_ref().map(|c| {
        let call = rt::absent(&p.n, f);
        quote_spanned!(f.span=> if !(#c) { #call?; })
    });
    let put = || {
        let call = rt::put(&p.n, f);
        quote_spanned!(f.span=> #call?;)
    };
    match &f.regular {
        Regular::Never => absent.unwrap_or_default(),
        Regular::Always => put(),
        Regular::When(g) => {
            let put = put();
            let absent_else = absent.map(|a| quote!(else { #a }));
            quote!(if #g { #put } #absent_else)
        }
    }
}

/// A run: one `put_slice` when all its fields are present (with the tagged section's count
/// when it ends the struct), else field by field.
fn run(p: &Plan, first: usize, len: usize) -> TokenStream {
    let fields = p.run(first, len);
    let ids: Vec<_> = fields.iter().map(|f| &f.field.ident).collect();
    let width: usize = fields.iter().map(|f| f.width.unwrap_or(0)).sum();
    let gates = p.run_gates(first, len);
    if gates.is_empty() {
        // A run that ends a struct whose tagged section holds only unknown fields: the
        // section's count goes out with the run (see `StructCx::put_run_tags`).
        match &p.s.unknown {
            Some(unk) if p.tags_with_run && first + len == p.fields.len() => {
                rt::put_run_tags(&p.n, width, &ids, unk)
            }
            _ => rt::put_run(&p.n, &Literal::usize_unsuffixed(width), &ids),
        }
    } else {
        let put = rt::put_run(&p.n, &Literal::usize_unsuffixed(width), &ids);
        let one_by_one = fields.iter().map(|f| field(p, f));
        quote!(if #(#gates)&&* { #put } else { #(#one_by_one)* })
    }
}
