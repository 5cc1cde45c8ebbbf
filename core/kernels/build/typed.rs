//! The generator of `tenor_kernels::typed` (ADR 0015, ADR 0027): from each manifest, the typed
//! launch struct, its owned scalars and borrowed buffers, and, for a manifest with a `[variant]`
//! table, the conversion from the kernel it is a variant of (the host-side columns of a batch
//! kernel, the rounding of an fp32 kernel's scalars). A variant whose arguments do not follow
//! its kind's rules fails the build, naming the manifest and the argument.

use std::fmt::Write as _;

use tenor_ports::{Access, ArgDef, ArgType, KernelDef, VariantKind};

use crate::variant::{self, element_type, BatchLayout};

/// `mc_barrier` -> `McBarrier`, `mc_european_f32` -> `McEuropeanF32`.
pub fn camel(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map_or_else(String::new, |f| f.to_ascii_uppercase().to_string() + c.as_str())
        })
        .collect()
}

/// The Rust type of a scalar argument (`None` for a buffer).
fn scalar_type(t: ArgType) -> Option<&'static str> {
    match t {
        ArgType::U32 => Some("u32"),
        ArgType::I32 => Some("i32"),
        ArgType::U64 => Some("u64"),
        ArgType::F32 => Some("f32"),
        ArgType::F64 => Some("f64"),
        ArgType::PtrF64 | ArgType::PtrF32 | ArgType::PtrU32 | ArgType::PtrU64 => None,
    }
}

fn access_path(a: Option<Access>) -> &'static str {
    match a {
        Some(Access::Read) => "Access::Read",
        Some(Access::Write) => "Access::Write",
        Some(Access::ReadWrite) | None => "Access::ReadWrite",
    }
}

fn access_word(a: Option<Access>) -> &'static str {
    match a {
        Some(Access::Read) => "read",
        Some(Access::Write) => "written",
        Some(Access::ReadWrite) | None => "read and written",
    }
}

/// The first sentence of a manifest description, for a one-line doc comment.
fn first_sentence(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = flat.find(": ").or_else(|| flat.find(". ")).unwrap_or(flat.len());
    flat[..end].trim_end_matches('.').replace('[', "\\[").replace(']', "\\]")
}

fn scalars(def: &KernelDef) -> impl Iterator<Item = &ArgDef> {
    def.args.iter().filter(|a| !a.ty.is_pointer())
}

fn buffers(def: &KernelDef) -> impl Iterator<Item = &ArgDef> {
    def.args.iter().filter(|a| a.ty.is_pointer())
}

fn buffer_doc(a: &ArgDef) -> String {
    format!(
        "Buffer of `{}` elements (`{}`), {} by the kernel.",
        &a.ty.as_str()[..3],
        a.ty.as_str(),
        access_word(a.access)
    )
}

/// `<'a>` when `def` has a buffer (its launch struct borrows them), else nothing.
fn lifetime(def: &KernelDef, name: &str) -> &'static str {
    match (buffers(def).next().is_some(), name) {
        (false, _) => "",
        (true, "_") => "<'_>",
        (true, _) => "<'a>",
    }
}

/// Everything generated for `def` (`all`: every manifest, for the kernel a variant names).
///
/// # Panics
/// On a `[variant]` that breaks the rules of `crate::variant` (a build error naming the
/// manifest and the argument).
pub fn generate(def: &KernelDef, folder: &str, all: &[KernelDef]) -> String {
    let mut s = typed_struct(def, folder);
    s.push_str(&parts(def));
    let of = variant::check(def, all).unwrap_or_else(|m| panic!("{m}"));
    if let (Some(v), Some(of)) = (&def.variant, of) {
        s.push_str(&match v.kind {
            VariantKind::Batch => batch(def, of, &variant::batch_layout(def, of).unwrap_or_else(|m| panic!("{m}"))),
            VariantKind::Fp32 => fp32(def, of),
        });
    }
    s
}

/// One typed launch struct for `def`.
fn typed_struct(def: &KernelDef, folder: &str) -> String {
    let ty = camel(&def.name);
    let lt = lifetime(def, "a");
    let mut s = String::new();
    writeln!(s, "/// `{}`: {}.", def.name, first_sentence(&def.description)).ok();
    writeln!(s, "///").ok();
    writeln!(
        s,
        "/// Typed launch generated from `kernels/{folder}/kernel.toml` (see the manifest for the method); \
         fields in manifest order, launched over `{}` work items in blocks of {}.",
        def.launch.items, def.launch.block
    )
    .ok();
    writeln!(s, "#[derive(Debug, Clone, Copy)]\npub struct {ty}{lt} {{").ok();
    for a in &def.args {
        match scalar_type(a.ty) {
            Some(t) => writeln!(s, "    /// Scalar `{}`.\n    pub {}: {t},", a.ty.as_str(), a.name).ok(),
            None => writeln!(s, "    /// {}\n    pub {}: &'a DeviceBuffer,", buffer_doc(a), a.name).ok(),
        };
    }
    writeln!(s, "}}\n").ok();
    let n = def.args.len();
    let items = match def.args.iter().find(|a| a.name == def.launch.items) {
        Some(a) if a.ty == ArgType::U64 => format!("self.{}", a.name),
        Some(a) => format!("u64::from(self.{})", a.name),
        None => "0".to_owned(),
    };
    let anon = lifetime(def, "_");
    writeln!(s, "impl {ty}{anon} {{").ok();
    writeln!(s, "    /// The kernel's name in the registry.\n    pub const NAME: &'static str = {:?};", def.name).ok();
    writeln!(
        s,
        "    /// Work items per block (`launch.block`); a kernel with per-block partials writes \
         `items.div_ceil(BLOCK)` of them.\n    pub const BLOCK: u32 = {};\n    \
         /// Blocks of a launch over `items` work items.\n    pub fn blocks(items: u64) -> u64 {{\n        \
         items.div_ceil(u64::from(Self::BLOCK))\n    }}",
        def.launch.block
    )
    .ok();
    writeln!(
        s,
        "    /// Work items of the launch: the `{}` field.\n    pub fn items(&self) -> u64 {{\n        {items}\n    }}",
        def.launch.items
    )
    .ok();
    writeln!(s, "    /// The positional arguments in manifest order, buffers with their manifest access.").ok();
    writeln!(s, "    pub fn args(&self) -> [Arg<'_>; {n}] {{\n        [").ok();
    for a in &def.args {
        let arg = match a.ty {
            ArgType::U32 => format!("Arg::U32(self.{})", a.name),
            ArgType::I32 => format!("Arg::I32(self.{})", a.name),
            ArgType::U64 => format!("Arg::U64(self.{})", a.name),
            ArgType::F32 => format!("Arg::F32(self.{})", a.name),
            ArgType::F64 => format!("Arg::F64(self.{})", a.name),
            _ => format!("Arg::Buf(self.{}, {})", a.name, access_path(a.access)),
        };
        writeln!(s, "            {arg},").ok();
    }
    writeln!(s, "        ]\n    }}").ok();
    writeln!(
        s,
        "    /// Loads the kernel on `compute` (compiled once and cached by the device), for \
         [`Self::launch_loaded`].\n    ///\n    /// # Errors\n    /// As [`Compute::load_kernel`].\n    \
         pub fn load<C: Compute + ?Sized>(compute: &C) -> Result<Kernel, ComputeError> {{\n        \
         compute.load_kernel(crate::get(Self::NAME)?)\n    }}"
    )
    .ok();
    writeln!(
        s,
        "    /// Loads the kernel through `compute` (compiled once and cached by the device) and \
         launches it on `stream`.\n    ///\n    /// # Errors\n    /// As [`Compute::load_kernel`] and \
         [`Compute::launch`].\n    pub fn launch<C: Compute + ?Sized>(&self, compute: &C, stream: &Stream) -> Result<(), ComputeError> {{\n        \
         launch_typed(compute, stream, Self::NAME, self.items(), &self.args())\n    }}"
    )
    .ok();
    writeln!(
        s,
        "    /// Launches on `stream` with `kernel` loaded earlier by [`Self::load`] (a hot loop's way to \
         skip the cache lookup).\n    ///\n    /// # Errors\n    /// [`ComputeError::KernelArg`] when `kernel` is not `{}`; \
         as [`Compute::launch`].\n    pub fn launch_loaded<C: Compute + ?Sized>(&self, compute: &C, stream: &Stream, kernel: &Kernel) -> Result<(), ComputeError> {{\n        \
         launch_loaded(compute, stream, kernel, Self::NAME, self.items(), &self.args())\n    }}",
        def.name
    )
    .ok();
    writeln!(s, "}}\n").ok();
    writeln!(
        s,
        "impl TypedLaunch for {ty}{anon} {{\n    const NAME: &'static str = {:?};\n    fn items(&self) -> u64 {{\n        \
         {ty}::items(self)\n    }}\n    fn to_args(&self) -> Vec<Arg<'_>> {{\n        self.args().to_vec()\n    }}\n}}\n",
        def.name
    )
    .ok();
    s
}

/// `<Kernel>Scalars` (owned) and `<Kernel>Buffers` (borrowed) of `def`, and the launch struct
/// made of the two.
fn parts(def: &KernelDef) -> String {
    let ty = camel(&def.name);
    let lt = lifetime(def, "a");
    let mut s = String::new();
    writeln!(
        s,
        "/// The scalar arguments of `{}`, owned, in manifest order: what a caller knows before any \
         buffer exists (a plan, a batch's products); [`{ty}::new`] adds the buffers.\n\
         #[derive(Debug, Clone, Copy, PartialEq)]\npub struct {ty}Scalars {{",
        def.name
    )
    .ok();
    for a in scalars(def) {
        writeln!(s, "    /// Scalar `{}`.\n    pub {}: {},", a.ty.as_str(), a.name, a.ty.as_str()).ok();
    }
    writeln!(s, "}}\n").ok();
    writeln!(
        s,
        "/// The buffer arguments of `{}`, borrowed, in manifest order.\n#[derive(Debug, Clone, Copy)]\n\
         pub struct {ty}Buffers{lt} {{",
        def.name
    )
    .ok();
    for a in buffers(def) {
        writeln!(s, "    /// {}\n    pub {}: &'a DeviceBuffer,", buffer_doc(a), a.name).ok();
    }
    writeln!(s, "}}\n").ok();
    let names = |it: &mut dyn Iterator<Item = &ArgDef>| it.map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ");
    let (bufs, scals) = (names(&mut buffers(def)), names(&mut scalars(def)));
    writeln!(
        s,
        "impl{lt} {ty}{lt} {{\n    /// The launch of `scalars` over `buffers`.\n    \
         pub fn new(buffers: {ty}Buffers{lt}, scalars: {ty}Scalars) -> Self {{\n        \
         let {ty}Buffers {{ {bufs} }} = buffers;\n        let {ty}Scalars {{ {scals} }} = scalars;\n        \
         Self {{ {all} }}\n    }}\n}}\n",
        all = def.args.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
    )
    .ok();
    s
}

/// The host-side columns of batch kernel `def`, a variant of `of` laid out as `layout`.
fn batch(def: &KernelDef, of: &KernelDef, layout: &BatchLayout<'_>) -> String {
    let BatchLayout { columns, products, items, shared, buffers: _ } = layout;
    let (ty, one) = (camel(&def.name), camel(&of.name));
    let items_ty = def.args.iter().find(|a| a.name == **items).map_or("u64", |a| a.ty.as_str());
    let mut s = String::new();
    writeln!(
        s,
        "/// The per-product columns of `{b}` on the host: each product is the scalars of one `{o}` launch\n\
         /// ([`{one}Scalars`], `kind = \"batch\"` in `kernels/{b}/kernel.toml`); [`Self::enqueue`] uploads\n\
         /// one buffer per column and launches `{b}` over every product.\n\
         #[derive(Debug, Clone, Default, PartialEq)]\npub struct {ty}Columns {{\n    \
         /// The first product: its scalars shared by every product ({shared_list}).\n    first: Option<{one}Scalars>,",
        b = def.name,
        o = of.name,
        shared_list = shared.iter().map(|a| format!("`{}`", a.name)).collect::<Vec<_>>().join(", "),
    )
    .ok();
    for c in columns {
        let t = element_type(c.ty).map_or("f64", ArgType::as_str);
        writeln!(s, "    /// Column `{}`: one `{t}` per product.\n    {}: Vec<{t}>,", c.name, c.name).ok();
    }
    writeln!(s, "}}\n").ok();
    writeln!(s, "impl {ty}Columns {{").ok();
    writeln!(
        s,
        "    /// Appends `product`'s per-product scalars to the columns.\n    ///\n    /// # Errors\n    \
         /// [`ComputeError::InvalidArgument`] when a scalar shared by every product of a launch\n    \
         /// differs from the first product's, naming it.\n    \
         pub fn push(&mut self, product: &{one}Scalars) -> Result<(), ComputeError> {{\n        \
         let first = *self.first.get_or_insert(*product);"
    )
    .ok();
    for a in shared {
        let differs = if matches!(a.ty, ArgType::F32 | ArgType::F64) {
            format!("product.{n}.to_bits() != first.{n}.to_bits()", n = a.name)
        } else {
            format!("product.{n} != first.{n}", n = a.name)
        };
        writeln!(
            s,
            "        if {differs} {{\n            return Err(ComputeError::InvalidArgument(format!(\n                \
             \"{b}: product {{}} has {n} {{}}, the first product {{}}: one launch has one {n}\",\n                \
             self.len(),\n                product.{n},\n                first.{n}\n            )));\n        }}",
            b = def.name,
            n = a.name
        )
        .ok();
    }
    for c in columns {
        writeln!(s, "        self.{n}.push(product.{n});", n = c.name).ok();
    }
    writeln!(s, "        Ok(())\n    }}").ok();
    writeln!(
        s,
        "    /// Products pushed.\n    pub fn len(&self) -> usize {{\n        self.{}.len()\n    }}\n    \
         /// Whether no product was pushed.\n    pub fn is_empty(&self) -> bool {{\n        self.len() == 0\n    }}",
        columns[0].name
    )
    .ok();
    writeln!(
        s,
        "    /// Uploads every column on `stream`, in manifest order.\n    ///\n    /// # Errors\n    \
         /// As [`ComputeExt::upload_slice`].\n    pub fn upload<C: Compute + ?Sized>(&self, compute: &C, stream: &Stream) -> \
         Result<{ty}ColumnBuffers, ComputeError> {{\n        Ok({ty}ColumnBuffers {{"
    )
    .ok();
    for c in columns {
        writeln!(s, "            {n}: compute.upload_slice(stream, &self.{n})?,", n = c.name).ok();
    }
    writeln!(s, "        }})\n    }}").ok();
    let olt = lifetime(of, "_");
    writeln!(
        s,
        "    /// Uploads the columns and launches `{b}` (`kernel`, loaded by [`{ty}::load`]) on `stream`\n    \
         /// over every product: `buffers` are `{o}`'s, sized for all products, the shared scalars\n    \
         /// the first product's, `{products}` the number of products and `{items}` the launch's work items.\n    \
         /// Returns the column buffers, to be kept until the launch's outputs are downloaded.\n    ///\n    \
         /// # Errors\n    /// [`ComputeError::InvalidArgument`] for no products or more than `u32::MAX`; as\n    \
         /// [`Self::upload`] and [`{ty}::launch_loaded`].\n    \
         pub fn enqueue<C: Compute + ?Sized>(\n        &self,\n        compute: &C,\n        stream: &Stream,\n        \
         kernel: &Kernel,\n        buffers: {one}Buffers{olt},\n        {items}: {items_ty},\n    ) -> Result<Vec<DeviceBuffer>, ComputeError> {{\n        \
         let first = self.first.ok_or_else(|| ComputeError::InvalidArgument(\"{b}: a launch without products\".into()))?;\n        \
         let {products} = u32::try_from(self.len())\n            \
         .map_err(|_| ComputeError::InvalidArgument(format!(\"{b}: {{}} products in one launch\", self.len())))?;\n        \
         let columns = self.upload(compute, stream)?;\n        {ty} {{",
        b = def.name,
        o = of.name,
    )
    .ok();
    for a in &def.args {
        let value = if columns.iter().any(|c| c.name == a.name) {
            format!("&columns.{}", a.name)
        } else if layout.buffers.iter().any(|b| b.name == a.name) {
            format!("buffers.{}", a.name)
        } else if a.name == *products || a.name == *items {
            a.name.clone()
        } else {
            format!("first.{}", a.name)
        };
        if value == a.name {
            writeln!(s, "            {},", a.name).ok();
        } else {
            writeln!(s, "            {}: {value},", a.name).ok();
        }
    }
    writeln!(
        s,
        "        }}\n        .launch_loaded(compute, stream, kernel)?;\n        Ok(columns.into_vec())\n    }}\n}}\n"
    )
    .ok();
    writeln!(s, "/// The columns of `{}` on the device ([`{ty}Columns::upload`]).\n#[derive(Debug)]\npub struct {ty}ColumnBuffers {{", def.name).ok();
    for c in columns {
        writeln!(s, "    /// {}\n    pub {}: DeviceBuffer,", buffer_doc(c), c.name).ok();
    }
    writeln!(
        s,
        "}}\n\nimpl {ty}ColumnBuffers {{\n    /// The buffers, in manifest order.\n    pub fn into_vec(self) -> Vec<DeviceBuffer> {{\n        \
         vec![{}]\n    }}\n}}\n",
        columns.iter().map(|c| format!("self.{}", c.name)).collect::<Vec<_>>().join(", ")
    )
    .ok();
    s
}

/// The conversion of `of`'s scalars to fp32 kernel `def`'s (`VariantKind::Fp32`, checked).
fn fp32(def: &KernelDef, of: &KernelDef) -> String {
    let (ty, one) = (camel(&def.name), camel(&of.name));
    let fields: Vec<String> = scalars(def)
        .map(|a| match (a.ty, scalars(of).find(|o| o.name == a.name).map(|o| o.ty)) {
            (ArgType::F32, Some(ArgType::F64)) => format!("{n}: self.{n} as f32", n = a.name),
            _ => format!("{n}: self.{n}", n = a.name),
        })
        .collect();
    format!(
        "impl {one}Scalars {{\n    /// `{f}`'s scalars (`kind = \"fp32\"` in `kernels/{f}/kernel.toml`): every `f64` rounded once\n    \
         /// to the nearest `f32`, the others as they are.\n    pub fn to_f32(self) -> {ty}Scalars {{\n        \
         {ty}Scalars {{ {} }}\n    }}\n}}\n\n",
        fields.join(", "),
        f = def.name,
    )
}
