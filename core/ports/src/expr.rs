//! Length expressions: the small integer grammar of the kernel manifest's `len` fields
//! (`kernels/<name>/kernel.toml`) and of `pilot.toml`'s `len` and `value` fields for in-house
//! kernels. One parser and one evaluator serve both.
//!
//! ```text
//! expr   := term (('+' | '-') term)*
//! term   := factor (('*' | '/') factor)*
//! factor := NUMBER | NAME | '(' expr ')'
//! ```
//!
//! Numbers are decimal `u64`; names are `[A-Za-z_][A-Za-z0-9_]*`, resolved by the caller (the
//! manifest: `items`, `blocks` and the kernel's integer scalar arguments; `pilot.toml`: `items`
//! and `blocks`). Arithmetic is on `u64`, checked: an overflow, a subtraction below zero or a
//! division by zero is an error, never a wrapped value. `/` is floor division; write
//! `(a + b - 1) / b` for the ceiling. Spaces are ignored. `2*blocks`, `steps*paths`,
//! `(step+1)*paths` and `5*((items+quotes-1)/quotes)` are expressions of this grammar.

use std::fmt;

/// Why a length expression could not be parsed or evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    /// The text is not an expression of the grammar; `column` is 1-based, in characters.
    #[error("length expression {expr:?}, column {column}: {reason}")]
    Syntax {
        /// The expression text.
        expr: String,
        /// 1-based character column of the problem.
        column: usize,
        /// What was expected.
        reason: String,
    },
    /// A name the caller does not define.
    #[error("length expression {expr:?}: unknown name {name:?} ({known})")]
    UnknownName {
        /// The expression text.
        expr: String,
        /// The name.
        name: String,
        /// What the caller accepts, for the message.
        known: String,
    },
    /// Overflow, a negative difference or a division by zero.
    #[error("length expression {expr:?}: {reason}")]
    Arithmetic {
        /// The expression text.
        expr: String,
        /// What went wrong, with the values involved.
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Num(u64),
    Name(String),
    Add,
    Sub,
    Mul,
    Div,
}

/// A parsed length expression (see the module documentation for the grammar).
///
/// Kept in postfix order, so evaluation is a loop over a small stack with no allocation for
/// expressions of up to eight pending operands.
#[derive(Clone, PartialEq, Eq)]
pub struct Expr {
    text: String,
    ops: Vec<Op>,
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Expr({:?})", self.text)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

struct Parser<'a> {
    text: &'a str,
    chars: Vec<char>,
    pos: usize,
    ops: Vec<Op>,
}

impl Parser<'_> {
    fn err(&self, reason: &str) -> ExprError {
        ExprError::Syntax { expr: self.text.to_owned(), column: self.pos + 1, reason: reason.to_owned() }
    }
    fn skip_spaces(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<char> {
        self.skip_spaces();
        self.chars.get(self.pos).copied()
    }
    fn expr(&mut self) -> Result<(), ExprError> {
        self.term()?;
        while let Some(c @ ('+' | '-')) = self.peek() {
            self.pos += 1;
            self.term()?;
            self.ops.push(if c == '+' { Op::Add } else { Op::Sub });
        }
        Ok(())
    }
    fn term(&mut self) -> Result<(), ExprError> {
        self.factor()?;
        while let Some(c @ ('*' | '/')) = self.peek() {
            self.pos += 1;
            self.factor()?;
            self.ops.push(if c == '*' { Op::Mul } else { Op::Div });
        }
        Ok(())
    }
    fn factor(&mut self) -> Result<(), ExprError> {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                self.expr()?;
                if self.peek() != Some(')') {
                    return Err(self.err("expected ')'"));
                }
                self.pos += 1;
                Ok(())
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
                    self.pos += 1;
                }
                let s: String = self.chars[start..self.pos].iter().collect();
                let v = s.parse::<u64>().map_err(|_| ExprError::Syntax {
                    expr: self.text.to_owned(),
                    column: start + 1,
                    reason: format!("{s} does not fit in 64 bits"),
                })?;
                self.ops.push(Op::Num(v));
                Ok(())
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.pos;
                while self.chars.get(self.pos).is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_') {
                    self.pos += 1;
                }
                self.ops.push(Op::Name(self.chars[start..self.pos].iter().collect()));
                Ok(())
            }
            Some(_) => Err(self.err("expected a number, a name or '('")),
            None => Err(self.err("expected a number, a name or '(' at the end")),
        }
    }
}

impl Expr {
    /// Parses `text`.
    ///
    /// # Errors
    /// [`ExprError::Syntax`] with the 1-based column of the first character that does not fit.
    pub fn parse(text: &str) -> Result<Self, ExprError> {
        let mut p = Parser { text, chars: text.chars().collect(), pos: 0, ops: Vec::new() };
        p.expr()?;
        if p.peek().is_some() {
            return Err(p.err("expected an operator (+ - * /) or the end"));
        }
        Ok(Self { text: text.to_owned(), ops: p.ops })
    }

    /// The expression as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The names the expression uses, in order of appearance (with repeats).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.ops.iter().filter_map(|o| match o {
            Op::Name(n) => Some(n.as_str()),
            _ => None,
        })
    }

    /// Checks that every name is accepted by `known`; `known_list` describes the accepted
    /// names for the error message.
    ///
    /// # Errors
    /// [`ExprError::UnknownName`] for the first name `known` refuses.
    pub fn check_names(&self, known: impl Fn(&str) -> bool, known_list: &str) -> Result<(), ExprError> {
        match self.names().find(|n| !known(n)) {
            Some(n) => Err(ExprError::UnknownName {
                expr: self.text.clone(),
                name: n.to_owned(),
                known: known_list.to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// Evaluates the expression; `value` gives each name's value (`None`: unknown name).
    ///
    /// # Errors
    /// [`ExprError::UnknownName`] for a name `value` does not know, [`ExprError::Arithmetic`]
    /// for an overflow, a negative difference or a division by zero.
    pub fn eval(&self, value: impl Fn(&str) -> Option<u64>) -> Result<u64, ExprError> {
        let mut stack: smallstack::Stack = smallstack::Stack::default();
        let arith = |reason: String| ExprError::Arithmetic { expr: self.text.clone(), reason };
        for op in &self.ops {
            let v = match op {
                Op::Num(v) => *v,
                Op::Name(n) => value(n).ok_or_else(|| ExprError::UnknownName {
                    expr: self.text.clone(),
                    name: n.clone(),
                    known: "not defined here".into(),
                })?,
                bin => {
                    let (a, b) = stack.pop2();
                    match bin {
                        Op::Add => a.checked_add(b).ok_or_else(|| arith(format!("{a} + {b} overflows 64 bits")))?,
                        Op::Sub => a.checked_sub(b).ok_or_else(|| arith(format!("{a} - {b} is negative")))?,
                        Op::Mul => a.checked_mul(b).ok_or_else(|| arith(format!("{a} * {b} overflows 64 bits")))?,
                        _ => a.checked_div(b).ok_or_else(|| arith(format!("{a} / {b} divides by zero")))?,
                    }
                }
            };
            stack.push(v);
        }
        Ok(stack.pop2().1)
    }
}

/// A fixed-capacity stack with a heap spill, so that evaluating a short expression allocates
/// nothing.
mod smallstack {
    #[derive(Default)]
    pub(super) struct Stack {
        inline: [u64; 8],
        len: usize,
        spill: Vec<u64>,
    }

    impl Stack {
        pub(super) fn push(&mut self, v: u64) {
            if self.len < self.inline.len() {
                self.inline[self.len] = v;
            } else {
                self.spill.push(v);
            }
            self.len += 1;
        }
        fn pop(&mut self) -> u64 {
            // The parser emits well-formed postfix code: an operator always finds two operands
            // and the whole expression leaves one; an empty stack reads as 0.
            if self.len == 0 {
                return 0;
            }
            self.len -= 1;
            if self.len < self.inline.len() {
                self.inline[self.len]
            } else {
                self.spill.pop().unwrap_or(0)
            }
        }
        /// Pops `b` then `a` and returns `(a, b)`.
        pub(super) fn pop2(&mut self) -> (u64, u64) {
            let b = self.pop();
            let a = self.pop();
            (a, b)
        }
    }
}

impl TryFrom<String> for Expr {
    type Error = ExprError;
    fn try_from(s: String) -> Result<Self, ExprError> {
        Self::parse(&s)
    }
}

impl<'de> serde::Deserialize<'de> for Expr {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, items: u64, blocks: u64) -> Result<u64, ExprError> {
        Expr::parse(text)?.eval(|n| match n {
            "items" => Some(items),
            "blocks" => Some(blocks),
            "steps" => Some(7),
            "zero" => Some(0),
            _ => None,
        })
    }

    /// Hand-computed values of the manifest forms (and precedence, parentheses, spaces).
    #[test]
    fn evaluates_the_manifest_forms_by_hand() {
        assert_eq!(eval("items", 10, 3), Ok(10));
        assert_eq!(eval("2*blocks", 10, 3), Ok(6));
        assert_eq!(eval(" 5 * blocks ", 10, 3), Ok(15));
        assert_eq!(eval("steps*items", 10, 3), Ok(70));
        assert_eq!(eval("(steps+1)*items", 10, 3), Ok(80));
        assert_eq!(eval("steps+1*items", 10, 3), Ok(17));
        assert_eq!(eval("5*((items+steps-1)/steps)", 15, 0), Ok(15)); // 5 * ceil(15 / 7)
        assert_eq!(eval("items-blocks-1", 10, 3), Ok(6)); // left-associative
        assert_eq!(eval("items/blocks/2", 12, 3), Ok(2));
        assert_eq!(eval("4096", 0, 0), Ok(4096));
    }

    #[test]
    fn syntax_errors_name_the_column() {
        let e = Expr::parse("2*").expect_err("dangling operator");
        assert!(matches!(e, ExprError::Syntax { column: 3, .. }), "{e}");
        let e = Expr::parse("2 x").expect_err("two operands");
        assert!(matches!(e, ExprError::Syntax { column: 3, .. }), "{e}");
        let e = Expr::parse("(items").expect_err("unclosed");
        assert!(e.to_string().contains("expected ')'"), "{e}");
        let e = Expr::parse("99999999999999999999").expect_err("too big");
        assert!(e.to_string().contains("64 bits"), "{e}");
        assert!(Expr::parse("").is_err());
        assert!(Expr::parse("items$").is_err());
    }

    #[test]
    fn arithmetic_errors_are_errors_not_wrapped_values() {
        assert!(matches!(eval("blocks-items", 1, 0), Err(ExprError::Arithmetic { .. })));
        assert!(matches!(eval("items/zero", 1, 0), Err(ExprError::Arithmetic { .. })));
        let e = eval("items*items", u64::MAX, 0).expect_err("overflow");
        assert!(e.to_string().contains("overflows"), "{e}");
        assert!(matches!(eval("paths", 1, 1), Err(ExprError::UnknownName { .. })));
    }

    #[test]
    fn deep_expressions_spill_past_the_inline_stack() {
        // 1+(1+(1+(...))) keeps ten operands pending.
        let text = format!("{}1{}", "1+(".repeat(10), ")".repeat(10));
        assert_eq!(eval(&text, 0, 0), Ok(11));
    }

    #[test]
    fn names_and_checks() {
        let e = Expr::parse("(step+1)*paths").expect("parses");
        assert_eq!(e.names().collect::<Vec<_>>(), ["step", "paths"]);
        assert!(e.check_names(|n| n == "paths", "paths").is_err());
        assert!(e.check_names(|n| n == "paths" || n == "step", "paths, step").is_ok());
    }
}
