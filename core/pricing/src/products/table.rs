//! The macro that turns the product table of [`super`] into the types and dispatch every layer
//! reads: [`super::Kind`] (the tags), [`super::TradeKind`] (a row's terms, by kind) and
//! [`super::McProduct`] (the Monte Carlo batch-kernel engine's arguments), each method a
//! `match` with one arm per row calling the row's [`super::Product`] implementation. Nothing
//! here names a product: a row's module says what the product is.

/// `1` for any token tree: counts the rows.
macro_rules! one {
    ($x:tt) => {
        1
    };
}

/// The product table: one row per kind,
/// `Tag(Terms) => module::Product [, mc Variant(Arguments)];`, with the row's doc comment.
macro_rules! products {
    ($(
        $(#[doc = $doc:literal])*
        $tag:ident($terms:ty) => $module:ident::$product:ident $(, mc $mcv:ident($mct:ty))?;
    )*) => {
        /// The kinds of the portfolio format, one per row of the product table, in its order
        /// (the spec's): the `kind` column's values.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind {
            $( $(#[doc = $doc])* $tag, )*
        }

        impl Kind {
            /// All kinds, in the table's (the spec's) order.
            pub const ALL: [Kind; 0 $(+ $crate::products::table::one!($tag))*] = [$(Kind::$tag),*];

            /// The name used in the `kind` column.
            #[must_use]
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Kind::$tag => <$module::$product as Instrument>::NAME,)*
                }
            }

            /// What the kind is, in one line.
            #[must_use]
            pub fn summary(self) -> &'static str {
                match self {
                    $(Kind::$tag => <$module::$product as Instrument>::SUMMARY,)*
                }
            }

            /// The engines that may price a trade of this kind.
            #[must_use]
            pub fn engines(self) -> &'static [&'static PricingEngine] {
                match self {
                    $(Kind::$tag => <$module::$product as Instrument>::ENGINES,)*
                }
            }

            /// The kind's code in the C ABI (`TENOR_KIND_*`), `None` where the C trade has no
            /// fields for it.
            #[must_use]
            pub fn c_code(self) -> Option<u32> {
                match self {
                    $(Kind::$tag => <$module::$product as Product>::C_CODE,)*
                }
            }

            /// The columns the kind reads beyond the common ones.
            #[must_use]
            pub fn columns(self) -> &'static [&'static str] {
                match self {
                    $(Kind::$tag => <$module::$product as Product>::COLUMNS,)*
                }
            }

            /// Whether the kind needs the `vol` column.
            #[must_use]
            pub fn needs_vol(self) -> bool {
                match self {
                    $(Kind::$tag => <$module::$product as Product>::NEEDS_VOL,)*
                }
            }

            /// Reads the kind's own cells ([`Product::read`]).
            pub(crate) fn read(self, row: &mut RowReader<'_>, vanilla: Option<Vanilla>) -> Option<TradeKind> {
                match self {
                    $(Kind::$tag => <$module::$product as Product>::read(row, vanilla).map(TradeKind::$tag),)*
                }
            }
        }

        /// The columns of every kind, row by row of the table (for [`crate::portfolio::COLUMNS`]).
        pub(crate) const KIND_COLUMNS: [&[&str]; 0 $(+ $crate::products::table::one!($tag))*] =
            [$(<$module::$product as Product>::COLUMNS),*];

        /// A trade's terms, by kind.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum TradeKind {
            $( $(#[doc = $doc])* $tag($terms), )*
        }

        impl TradeKind {
            /// The kind's tag.
            #[must_use]
            pub fn kind(&self) -> Kind {
                match self {
                    $(TradeKind::$tag(_) => Kind::$tag,)*
                }
            }

            /// The option terms shared by every kind.
            #[must_use]
            pub fn vanilla(&self) -> &Vanilla {
                match self {
                    $(TradeKind::$tag(t) => <$module::$product as Product>::vanilla(t),)*
                }
            }

            /// Writes the kind's own cells ([`Product::write`]).
            pub(crate) fn write(&self, cells: &mut CellWriter<'_>) {
                match self {
                    $(TradeKind::$tag(t) => <$module::$product as Product>::write(t, cells),)*
                }
            }

            /// The value and Greek limits at expiry ([`Product::at_expiry`]).
            pub(crate) fn at_expiry(&self, limits: Greeks) -> Greeks {
                match self {
                    $(TradeKind::$tag(t) => <$module::$product as Product>::at_expiry(t, limits),)*
                }
            }

            /// How `engine` prices the trade: the payoff at `maturity` 0, else the product's
            /// own route ([`Product::route`]).
            #[must_use]
            pub fn route(&self, engine: Engine) -> Route {
                if self.vanilla().maturity == 0.0 {
                    return Route::Expiry;
                }
                match self {
                    $(TradeKind::$tag(t) => <$module::$product as Product>::route(t, engine),)*
                }
            }

            /// Prices the trade on the host under `engine` ([`Product::host_price`]).
            pub(crate) fn host_price(&self, engine: &PricingEngine, greeks: bool) -> Result<Greeks, PriceError> {
                match self {
                    $(TradeKind::$tag(t) => <$module::$product as Product>::host_price(t, engine, greeks),)*
                }
            }

            /// Host cost of pricing the trade under `engine` ([`Product::host_cost`]).
            pub(crate) fn host_cost(&self, engine: &PricingEngine, greeks: bool) -> f64 {
                match self {
                    $(TradeKind::$tag(t) => <$module::$product as Product>::host_cost(t, engine, greeks),)*
                }
            }
        }

        /// What the Monte Carlo batch-kernel engine ([`crate::mc`]) prices: one variant per
        /// row of the product table that it prices, holding the argument shape its kernels
        /// take; the product's module plans its job ([`Simulated`]).
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum McProduct {
            $($(
                #[doc = concat!("[`", stringify!($module), "::", stringify!($product), "`] under Monte Carlo.")]
                $mcv($mct),
            )?)*
        }

        impl McArguments for McProduct {
            fn vanilla(&self) -> &Vanilla {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::vanilla(a),)?)*
                }
            }
            fn vanilla_mut(&mut self) -> &mut Vanilla {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::vanilla_mut(a),)?)*
                }
            }
            fn validate(&self) -> Result<(), McError> {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::validate(a),)?)*
                }
            }
            fn spot_domain(&self) -> BumpDomain {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::spot_domain(a),)?)*
                }
            }
            fn time_bump(&self, bump: f64) -> f64 {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::time_bump(a, bump),)?)*
                }
            }
            fn shift_time(&mut self, h: f64) {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::shift_time(a, h),)?)*
                }
            }
            fn shift_vol(&mut self, h: f64) {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::shift_vol(a, h),)?)*
                }
            }
            fn path_steps(&self, steps: u32) -> u32 {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::path_steps(a, steps),)?)*
                }
            }
            fn qe_substeps(&self, steps: u32) -> Option<u32> {
                match self {
                    $($(McProduct::$mcv(a) => McArguments::qe_substeps(a, steps),)?)*
                }
            }
        }

        impl McPayoff for McProduct {
            fn job(&self, cfg: &McConfig, route: CallRoute) -> Result<McJob, McError> {
                match self {
                    $($(McProduct::$mcv(a) => <$module::$product as Simulated>::job(a, cfg, route),)?)*
                }
            }
            fn call_route(&self) -> CallRoute {
                match self {
                    $($(McProduct::$mcv(a) => <$module::$product as Simulated>::call_route(a),)?)*
                }
            }
            fn cost_weight(&self) -> f64 {
                match self {
                    $($(McProduct::$mcv(_) => <$module::$product as Simulated>::COST_WEIGHT,)?)*
                }
            }
        }
    };
}

pub(crate) use {one, products};
