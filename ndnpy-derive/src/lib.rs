//! `#[derive(NpyRecord)]` for [`ndnpy`](https://docs.rs/ndnpy): Rust structs as NumPy
//! structured records. Use it through `ndnpy` (feature `derive`, on by default), which
//! re-exports it as `ndnpy::NpyRecord` next to the trait of the same name.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{parse_macro_input, Data, DeriveInput, Fields, GenericParam, LitInt, LitStr};

/// Derives `ndnpy::NpyRecord` for a struct of named fields, making it an array element whose
/// dtype is a numpy structured record: readable (fields matched by name), writable (packed,
/// in declaration order, byte-identical to `np.save`), and, for `#[repr(C)]` structs,
/// viewable in place.
///
/// Every field type must implement `ndnpy::record::RecordField`: numbers, `bool`, `half::f16`,
/// `half::bf16`,
/// `Complex`, `[T; N]` (a sub-array), `String` and `Vec<u8>` with a length, `FixedBytes`,
/// `FixedUnicode`, datetimes and timedeltas with their unit in the type
/// (`ndnpy::element::DatetimeIn<ndnpy::unit::Days>` is `datetime64[D]`), and other derived structs
/// (nested records). A type parameter of the struct is bounded by `RecordField`, so it stands
/// for a field's whole type, not for a unit.
///
/// # Attributes
///
/// On fields:
///
/// - `#[npy(rename = "name")]`: the field's name in files (any non-empty string; by default
///   the Rust name, without `r#`).
/// - `#[npy(len = N)]`: the length of a `String` (`'<UN'`, N characters) or `Vec<u8>`
///   (`'|SN'`, N bytes) field, or of the strings in an array of them. Required for these
///   types and refused on others, at compile time.
///
/// On the struct:
///
/// - `#[npy(crate = "path")]`: where the `ndnpy` crate is, if not at `::ndnpy`.
/// - `#[npy(no_view)]`: no zero-copy view implementations for a `#[repr(C)]` struct (which
///   otherwise require every field to be plain data).
///
/// With `#[repr(C)]`, `#[repr(C, packed)]` or `#[repr(transparent)]`, the derive also
/// implements `PlainField`, `ViewElement` and `ViewMutElement`: files whose record layout is
/// the struct's are viewed without copying. The fields of a packed struct must be `Copy`.
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array1};
/// use ndnpy::{NpyRecord, ReadNpyExt, WriteNpyExt};
///
/// #[derive(NpyRecord, Debug, PartialEq)]
/// struct Particle {
///     id: u32,
///     #[npy(rename = "type", len = 4)]
///     kind: String,
///     r#pos: [[f32; 2]; 3],
///     alive: bool,
/// }
///
/// let a = array![Particle { id: 1, kind: "e-".into(), pos: [[0.5; 2]; 3], alive: true }];
/// let mut file = Vec::new();
/// a.write_npy(&mut file)?;
/// let n = ndnpy::dtype::ByteOrder::NATIVE.as_char();
/// let descr = format!("[('id', '{n}u4'), ('type', '{n}U4'), ('pos', '{n}f4', (3, 2)), ('alive', '|b1')]");
/// let header = ndnpy::Header::read(&mut &file[..], &Default::default())?.header;
/// assert_eq!(header.dtype.descr(), descr);
/// assert_eq!(Array1::<Particle>::read_npy(&file[..])?, a);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[proc_macro_derive(NpyRecord, attributes(npy))]
pub fn derive_npy_record(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

struct FieldInfo {
    ident: syn::Ident,
    ty: syn::Type,
    name: String,
    len: Option<LitInt>,
    span: Span,
}

#[derive(Default)]
struct StructAttrs {
    krate: Option<syn::Path>,
    no_view: bool,
}

#[derive(Default)]
struct Repr {
    c: bool,
    packed: bool,
}

fn struct_attrs(input: &DeriveInput) -> syn::Result<StructAttrs> {
    let mut out = StructAttrs::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("npy")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let s: LitStr = meta.value()?.parse()?;
                out.krate = Some(s.parse()?);
                Ok(())
            } else if meta.path.is_ident("no_view") {
                out.no_view = true;
                Ok(())
            } else {
                Err(meta.error("unknown struct attribute; expected `crate = \"...\"` or `no_view`"))
            }
        })?;
    }
    Ok(out)
}

fn repr(input: &DeriveInput) -> syn::Result<Repr> {
    let mut out = Repr::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") || meta.path.is_ident("transparent") {
                out.c = true;
            } else if meta.path.is_ident("packed") {
                out.packed = true;
            }
            // Skip arguments such as `align(8)` or `packed(2)`.
            if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                content.parse::<TokenStream2>()?;
            }
            Ok(())
        })?;
    }
    Ok(out)
}

fn field_info(field: &syn::Field) -> syn::Result<FieldInfo> {
    let ident = field
        .ident
        .clone()
        .ok_or_else(|| syn::Error::new(field.span(), "NpyRecord needs named fields"))?;
    let mut name = ident.unraw().to_string();
    let mut len = None;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("npy")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let s: LitStr = meta.value()?.parse()?;
                if s.value().is_empty() {
                    return Err(syn::Error::new(
                        s.span(),
                        "a field name cannot be empty: numpy reads unnamed fields as padding",
                    ));
                }
                name = s.value();
                Ok(())
            } else if meta.path.is_ident("len") {
                let n: LitInt = meta.value()?.parse()?;
                let v: u64 = n.base10_parse()?;
                if v > u64::from(u32::MAX) {
                    return Err(syn::Error::new(
                        n.span(),
                        "string lengths above u32::MAX are not supported",
                    ));
                }
                len = Some(n);
                Ok(())
            } else {
                Err(meta.error("unknown field attribute; expected `rename = \"...\"` or `len = N`"))
            }
        })?;
    }
    Ok(FieldInfo {
        ident,
        ty: field.ty.clone(),
        name,
        len,
        span: field.span(),
    })
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let attrs = struct_attrs(input)?;
    let repr = repr(input)?;
    let krate: syn::Path = attrs.krate.unwrap_or_else(|| syn::parse_quote!(::ndnpy));
    let fields: Vec<FieldInfo> = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => named
                .named
                .iter()
                .map(field_info)
                .collect::<syn::Result<_>>()?,
            Fields::Unit => Vec::new(),
            Fields::Unnamed(_) => {
                return Err(syn::Error::new(
                    input.ident.span(),
                    "NpyRecord needs a struct with named fields (numpy fields have names)",
                ))
            }
        },
        _ => {
            return Err(syn::Error::new(
                input.ident.span(),
                "NpyRecord can only be derived for structs with named fields",
            ))
        }
    };
    for (i, f) in fields.iter().enumerate() {
        if let Some(other) = fields[..i].iter().find(|g| g.name == f.name) {
            return Err(syn::Error::new(
                f.span,
                format!(
                    "field name {:?} is already used by field `{}`",
                    f.name, other.ident
                ),
            ));
        }
    }

    let ident = &input.ident;
    let generic = input
        .generics
        .params
        .iter()
        .any(|p| matches!(p, GenericParam::Type(_) | GenericParam::Const(_)));
    let (impl_g, ty_g, where_c) = input.generics.split_for_impl();
    let bounded = |bound: TokenStream2| -> TokenStream2 {
        let mut preds: Vec<TokenStream2> = where_c
            .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
            .unwrap_or_default();
        for p in input.generics.type_params() {
            let t = &p.ident;
            preds.push(quote!(#t: #bound));
        }
        if preds.is_empty() {
            quote!()
        } else {
            quote!(where #(#preds),*)
        }
    };
    let where_field = bounded(quote!(#krate::record::RecordField));
    let where_plain = bounded(quote!(#krate::record::PlainField));

    let tys: Vec<&syn::Type> = fields.iter().map(|f| &f.ty).collect();
    let names: Vec<&String> = fields.iter().map(|f| &f.name).collect();
    let idents: Vec<&syn::Ident> = fields.iter().map(|f| &f.ident).collect();
    let idx: Vec<syn::Index> = (0..fields.len()).map(syn::Index::from).collect();
    let len_exprs: Vec<TokenStream2> = fields
        .iter()
        .map(|f| match &f.len {
            Some(n) => quote!(::core::option::Option::Some(#n as usize)),
            None => quote!(::core::option::Option::None),
        })
        .collect();

    // `#[npy(len = N)]` exactly on the types that take one, checked at compile time.
    let len_checks: Vec<TokenStream2> = fields
        .iter()
        .map(|f| {
            let ty = &f.ty;
            let (cond, msg) = match &f.len {
                Some(_) => (
                    quote!(<#ty as #krate::record::RecordField>::TAKES_LEN),
                    format!(
                        "field `{}`: #[npy(len = N)] applies only to String and Vec<u8> fields \
                         (and arrays of them)",
                        f.ident
                    ),
                ),
                None => (
                    quote!(!<#ty as #krate::record::RecordField>::TAKES_LEN),
                    format!(
                        "field `{}`: String and Vec<u8> fields need #[npy(len = N)], their \
                         length in the file",
                        f.ident
                    ),
                ),
            };
            quote_spanned!(f.span=> ::core::assert!(#cond, #msg);)
        })
        .collect();
    let (item_checks, fn_checks) = if generic {
        (quote!(), quote!(const { #(#len_checks)* };))
    } else {
        (quote!(const _: () = { #(#len_checks)* };), quote!())
    };

    let construct = match &input.data {
        Data::Struct(s) if matches!(s.fields, Fields::Unit) => quote!(#ident),
        _ => quote!(#ident { #( #idents: __npy_plan.#idx.decode::<#tys>(__npy_bytes), )* }),
    };
    // A packed struct's fields cannot be borrowed: encode a copy.
    let field_refs: Vec<TokenStream2> = idents
        .iter()
        .map(|id| {
            if repr.packed {
                quote!(&{ self.#id })
            } else {
                quote!(&self.#id)
            }
        })
        .collect();

    let view = repr.c && !attrs.no_view;
    // Plain records whose layout matches the file's are read straight into the array.
    let read_fn = if view {
        quote!(#krate::record::derive_runtime::read_vec_plain)
    } else {
        quote!(#krate::record::derive_runtime::read_vec)
    };
    let where_read = if view { &where_plain } else { &where_field };
    let record_impls = quote! {
        #[automatically_derived]
        impl #impl_g #krate::record::RecordField for #ident #ty_g #where_field {
            type Plan = ( #( #krate::record::derive_runtime::FieldPlan<<#tys as #krate::record::RecordField>::Plan>, )* );
            const NEEDS_CHECK: bool = false #( || <#tys as #krate::record::RecordField>::NEEDS_CHECK )*;

            fn npy_dtype(_len: ::core::option::Option<usize>) -> #krate::DType {
                #fn_checks
                #krate::record::derive_runtime::record_dtype(::std::vec![
                    #( (#names, <#tys as #krate::record::RecordField>::npy_dtype(#len_exprs)), )*
                ])
            }

            fn plan(found: &#krate::DType) -> ::core::result::Result<Self::Plan, #krate::Error> {
                #[allow(unused_variables)]
                let record = #krate::record::derive_runtime::record_of::<Self>(found, &[ #( #names ),* ])?;
                ::core::result::Result::Ok(( #( #krate::record::derive_runtime::FieldPlan::resolve::<#tys>(record, #names)?, )* ))
            }

            #[inline]
            #[allow(unused_variables)]
            fn check(__npy_plan: &Self::Plan, __npy_bytes: &[u8]) -> ::core::result::Result<(), #krate::Error> {
                #( __npy_plan.#idx.check::<#tys>(__npy_bytes, #names)?; )*
                ::core::result::Result::Ok(())
            }

            #[inline]
            #[allow(unused_variables)]
            fn decode(__npy_plan: &Self::Plan, __npy_bytes: &[u8]) -> Self {
                #construct
            }

            #[inline]
            #[allow(unused_variables)]
            fn encode(&self, __npy_plan: &Self::Plan, __npy_out: &mut [u8]) -> ::core::result::Result<(), #krate::Error> {
                #( __npy_plan.#idx.encode::<#tys>(#field_refs, __npy_out, #names)?; )*
                ::core::result::Result::Ok(())
            }
        }

        #[automatically_derived]
        impl #impl_g #krate::record::derive_runtime::Sealed for #ident #ty_g #where_field {}

        impl #impl_g #krate::ReadableElement for #ident #ty_g #where_read {
            fn read_vec<R: ::std::io::Read + ?Sized>(
                reader: &mut R,
                dtype: &#krate::DType,
                len: usize,
                input: #krate::element::Input,
            ) -> ::core::result::Result<::std::vec::Vec<Self>, #krate::Error> {
                #read_fn::<Self, R>(reader, dtype, len, input)
            }
        }

        #[automatically_derived]
        impl #impl_g #krate::WritableElement for #ident #ty_g #where_field {
            fn dtype_of<'__npy, I: ::core::iter::Iterator<Item = &'__npy Self>>(_elems: I) -> #krate::DType
            where
                Self: '__npy,
            {
                <Self as #krate::record::RecordField>::npy_dtype(::core::option::Option::None)
            }

            fn write_slice<W: ::std::io::Write + ?Sized>(
                slice: &[Self],
                writer: &mut W,
                dtype: &#krate::DType,
            ) -> ::core::result::Result<(), #krate::Error> {
                #krate::record::derive_runtime::write_slice(slice, writer, dtype)
            }

            fn write_iter<'__npy, W: ::std::io::Write + ?Sized, I: ::core::iter::Iterator<Item = &'__npy Self>>(
                iter: I,
                writer: &mut W,
                dtype: &#krate::DType,
            ) -> ::core::result::Result<(), #krate::Error>
            where
                Self: '__npy,
            {
                #krate::record::derive_runtime::write_iter(iter, writer, dtype)
            }
        }

        #[automatically_derived]
        impl #impl_g #krate::element::FixedDType for #ident #ty_g #where_field {
            fn dtype() -> #krate::DType {
                <Self as #krate::record::RecordField>::npy_dtype(::core::option::Option::None)
            }
        }

        #[automatically_derived]
        impl #impl_g #krate::NpyRecord for #ident #ty_g #where_field {}
    };

    let view_impls = if view {
        let sizes = quote!(0usize #( + ::core::mem::size_of::<#tys>() )*);
        quote! {
            // SAFETY: the struct is #[repr(C)] (or packed or transparent) and every field type
            // implements PlainField (required by the bounds below, so it is plain data without
            // interior mutability). `check_layout` accepts only a record of
            // exactly `size_of::<Self>()` bytes in which every Rust field has a file field of
            // the same name at its `offset_of!` offset whose dtype the field type's own
            // `check_layout` accepts; `check` runs every field's check. So every byte of a
            // field is valid for it and the other bytes are padding. `HAS_PADDING` is true if
            // the fields' sizes do not add up to the struct's size or a field has padding.
            #[automatically_derived]
            unsafe impl #impl_g #krate::record::PlainField for #ident #ty_g #where_plain {
                const HAS_PADDING: bool = ::core::mem::size_of::<Self>() != #sizes
                    #( || <#tys as #krate::record::PlainField>::HAS_PADDING )*;

                fn check_layout(found: &#krate::DType) -> ::core::result::Result<(), #krate::Error> {
                    #[allow(unused_variables)]
                    let record = #krate::record::derive_runtime::layout_of::<Self>(found)?;
                    #( #krate::record::derive_runtime::layout_field::<#tys, Self>(record, #names, ::core::mem::offset_of!(Self, #idents))?; )*
                    ::core::result::Result::Ok(())
                }
            }

            #[automatically_derived]
            impl #impl_g #krate::ViewElement for #ident #ty_g #where_plain {
                fn bytes_as_slice<'__npy>(
                    bytes: &'__npy [u8],
                    dtype: &#krate::DType,
                    len: usize,
                ) -> ::core::result::Result<&'__npy [Self], #krate::Error> {
                    #krate::record::derive_runtime::view::<Self>(bytes, dtype, len)
                }
            }

            #[automatically_derived]
            impl #impl_g #krate::ViewMutElement for #ident #ty_g #where_plain {
                fn bytes_as_mut_slice<'__npy>(
                    bytes: &'__npy mut [u8],
                    dtype: &#krate::DType,
                    len: usize,
                ) -> ::core::result::Result<&'__npy mut [Self], #krate::Error> {
                    #krate::record::derive_runtime::view_mut::<Self>(bytes, dtype, len)
                }
            }
        }
    } else {
        quote!()
    };

    Ok(quote! {
        #item_checks
        const _: () = {
            #record_impls
            #view_impls
        };
    })
}
