//! The rules of a manifest's `[variant]` table ([`tenor_ports::VariantSpec`], ADR 0027): how a
//! kernel's arguments follow those of the kernel it is a variant of, checked by the build script
//! (which generates the conversions of `tenor_kernels::typed` from them) and by tests. Like
//! [`crate::entry`], this module is compiled twice: into the build script (`#[path]`) and into
//! the library.
//!
//! A **batch** kernel (`kind = "batch"`, one launch for many products of `of`, ADR 0009) has:
//! - *columns*: read-only buffers named as a scalar of `of`, of that scalar's type, all of the
//!   same `len`, which names a `u32` scalar of the batch's own (the product count, `products`);
//! - *shared* scalars: scalars of `of` of the same name and type, one value for every product;
//! - `of`'s buffers, of the same name, type and access (sized for every product);
//! - the launch's `items`, a scalar of its own; and nothing else. Every argument of `of` is
//!   a column, a shared scalar or a buffer of the batch.
//!
//! An **fp32** kernel (`kind = "fp32"`) has `of`'s arguments by name and in order, every `f64`
//! scalar an `f32` (buffers of any element type).

use tenor_ports::{Access, ArgDef, ArgType, KernelDef, VariantKind};

/// How a batch kernel's arguments map to those of the kernel it batches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchLayout<'a> {
    /// The per-product columns, in manifest order.
    pub columns: Vec<&'a ArgDef>,
    /// The batch's own `u32` scalar counting the products (the columns' `len`).
    pub products: &'a str,
    /// The launch's work items (`launch.items`), a scalar of the batch's own.
    pub items: &'a str,
    /// Scalars with one value for every product, in manifest order.
    pub shared: Vec<&'a ArgDef>,
    /// The buffers of the single kernel, in manifest order.
    pub buffers: Vec<&'a ArgDef>,
}

/// The scalar type of a buffer's elements (`None` for a scalar).
pub fn element_type(t: ArgType) -> Option<ArgType> {
    match t {
        ArgType::PtrF64 => Some(ArgType::F64),
        ArgType::PtrF32 => Some(ArgType::F32),
        ArgType::PtrU32 => Some(ArgType::U32),
        ArgType::PtrU64 => Some(ArgType::U64),
        ArgType::U32 | ArgType::I32 | ArgType::U64 | ArgType::F32 | ArgType::F64 => None,
    }
}

/// The layout of batch kernel `def` over single kernel `of`.
///
/// # Errors
/// What breaks the batch rules (module documentation), naming the argument.
pub fn batch_layout<'a>(def: &'a KernelDef, of: &'a KernelDef) -> Result<BatchLayout<'a>, String> {
    let single = |name: &str| of.args.iter().find(|a| a.name == name);
    let mut columns: Vec<&ArgDef> = Vec::new();
    let mut buffers: Vec<&ArgDef> = Vec::new();
    let mut len: Option<&str> = None;
    for a in def.args.iter().filter(|a| a.ty.is_pointer()) {
        match single(&a.name) {
            Some(o) if !o.ty.is_pointer() => {
                if element_type(a.ty) != Some(o.ty) || a.access != Some(Access::Read) {
                    return Err(format!(
                        "column {} must be a read-only {}* ({} is a {} scalar of {})",
                        a.name,
                        o.ty.as_str(),
                        a.name,
                        o.ty.as_str(),
                        of.name
                    ));
                }
                let this = a.len.as_ref().map_or("", |e| e.as_str().trim());
                match len {
                    Some(l) if l != this => {
                        return Err(format!("column {} has len {this:?}, the columns before it {l:?}", a.name))
                    }
                    _ => len = Some(this),
                }
                columns.push(a);
            }
            Some(o) if o.ty == a.ty && o.access == a.access => buffers.push(a),
            _ => {
                return Err(format!(
                "buffer {} is neither a buffer of {} (same type and access) nor a column (named as one of its scalars)",
                a.name, of.name
            ))
            }
        }
    }
    let products = len.ok_or("no columns (read-only buffers named as its scalars)")?;
    match def.args.iter().find(|a| a.name == products) {
        Some(a) if a.ty == ArgType::U32 && single(products).is_none() => {}
        _ => {
            return Err(format!("the columns' len {products:?} must name a u32 scalar of its own (the product count)"))
        }
    }
    let items = def.launch.items.as_str();
    if single(items).is_some() {
        return Err(format!("launch.items {items:?} must be a scalar of its own, not one of {}", of.name));
    }
    let mut shared: Vec<&ArgDef> = Vec::new();
    for a in def.args.iter().filter(|a| !a.ty.is_pointer() && a.name != products && a.name != items) {
        match single(&a.name) {
            Some(o) if o.ty == a.ty => shared.push(a),
            _ => {
                return Err(format!(
                    "scalar {} is not a scalar of {} of the same type (one value for every product)",
                    a.name, of.name
                ))
            }
        }
    }
    if let Some(o) = of.args.iter().find(|o| !def.args.iter().any(|a| a.name == o.name)) {
        return Err(format!(
            "{}'s argument {} is neither a column, a shared scalar nor a buffer here",
            of.name, o.name
        ));
    }
    Ok(BatchLayout { columns, products, items, shared, buffers })
}

/// Checks that fp32 kernel `def` has `of`'s arguments, every `f64` scalar an `f32`.
///
/// # Errors
/// The first argument that differs.
pub fn check_fp32(def: &KernelDef, of: &KernelDef) -> Result<(), String> {
    if def.args.len() != of.args.len() {
        return Err(format!("{} arguments, {} has {}", def.args.len(), of.name, of.args.len()));
    }
    for (i, (a, o)) in def.args.iter().zip(&of.args).enumerate() {
        let types =
            a.ty == o.ty || (a.ty == ArgType::F32 && o.ty == ArgType::F64) || (a.ty.is_pointer() && o.ty.is_pointer());
        if a.name != o.name || !types {
            return Err(format!(
                "argument {i} is {} {}, {}'s is {} {} (the same names in order, f64 scalars as f32)",
                a.ty.as_str(),
                a.name,
                of.name,
                o.ty.as_str(),
                o.name
            ));
        }
    }
    Ok(())
}

/// Checks `def`'s `[variant]` table, if any, against the manifests `all`; returns the kernel it
/// is a variant of.
///
/// # Errors
/// `variant.of` naming no manifest, or the rules of its kind broken: a message naming the
/// manifest file (`kernels/<name>/kernel.toml`) and the argument.
pub fn check<'a>(def: &KernelDef, all: &'a [KernelDef]) -> Result<Option<&'a KernelDef>, String> {
    let Some(v) = &def.variant else { return Ok(None) };
    let origin = format!("kernels/{}/kernel.toml", def.name);
    let of = all
        .iter()
        .find(|d| d.name == v.of)
        .ok_or_else(|| format!("{origin}: variant.of names {:?}, which is no kernel's manifest", v.of))?;
    let checked = match v.kind {
        VariantKind::Batch => batch_layout(def, of).map(|_| ()),
        VariantKind::Fp32 => check_fp32(def, of),
    };
    checked.map_err(|m| format!("{origin}: [variant] {:?} of {}: {m}", v.kind, of.name))?;
    Ok(Some(of))
}
