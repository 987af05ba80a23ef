//! One definition of a query for both stores: statements are written once, with `$1`,
//! `$2`… placeholders (a SQLite parameter name as well as PostgreSQL's), bound from a small
//! [`Value`] type, and read back as [`Row`]s of the same type. Where the two engines agree
//! on the SQL (most of the service's queries), a query module takes `&mut dyn Sql` and runs
//! on either; only migrations, claiming, bulk import and counting visitors stay
//! store-specific.

use postgres::types::{ToSql, Type};

use crate::server::db::StoreError;

/// Which engine runs a statement, for the rare piece that differs (`NOTIFY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// A parameter or a column's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl From<i64> for Value {
    fn from(value: i64) -> Self {
        Self::Int(value)
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Self {
        Self::Int(i64::from(value))
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Self {
        Self::Text(value.to_owned())
    }
}

impl From<&String> for Value {
    fn from(value: &String) -> Self {
        Self::Text(value.clone())
    }
}

impl From<String> for Value {
    fn from(value: String) -> Self {
        Self::Text(value)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Null, Into::into)
    }
}

/// `args![a, b]`: the parameters `$1`, `$2` of a statement.
#[macro_export]
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        &[$($crate::server::store::Value::from($value)),*]
    };
}

/// A row read back, its columns by position.
#[derive(Debug, Clone, PartialEq)]
pub struct Row(pub Vec<Value>);

impl Row {
    fn at(&self, i: usize) -> Result<&Value, StoreError> {
        self.0
            .get(i)
            .ok_or_else(|| StoreError::Damaged(format!("a row has no column {i}")))
    }

    fn mismatch(&self, i: usize, wanted: &str) -> StoreError {
        StoreError::Damaged(format!(
            "column {i} holds {:?} where {wanted} was expected",
            self.0.get(i)
        ))
    }

    /// An integer column that is never null.
    pub fn int(&self, i: usize) -> Result<i64, StoreError> {
        self.opt_int(i)?
            .ok_or_else(|| self.mismatch(i, "an integer"))
    }

    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Int(value) => Ok(Some(*value)),
            _ => Err(self.mismatch(i, "an integer")),
        }
    }

    /// A text column that is never null.
    pub fn text(&self, i: usize) -> Result<String, StoreError> {
        self.opt_text(i)?.ok_or_else(|| self.mismatch(i, "text"))
    }

    pub fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Text(value) => Ok(Some(value.clone())),
            _ => Err(self.mismatch(i, "text")),
        }
    }

    /// A 0/1 (SQLite) or boolean (PostgreSQL) column.
    pub fn flag(&self, i: usize) -> Result<bool, StoreError> {
        Ok(self.int(i)? != 0)
    }
}

/// A connection or transaction of either store.
pub trait Sql {
    /// Runs a statement; how many rows it changed.
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError>;
    /// Runs a query and reads every row.
    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError>;
    fn engine(&self) -> Engine;

    /// The first row, if any.
    fn opt(&mut self, sql: &str, params: &[Value]) -> Result<Option<Row>, StoreError> {
        Ok(self.rows(sql, params)?.into_iter().next())
    }

    /// The first row, which must be there.
    fn one(&mut self, sql: &str, params: &[Value]) -> Result<Row, StoreError> {
        self.opt(sql, params)?.ok_or_else(|| {
            StoreError::Damaged(format!(
                "a query that always answers gave no row: {}",
                crate::text::excerpt(sql.trim(), 80)
            ))
        })
    }
}

/// A SQLite connection (or transaction, through `Deref`) as a [`Sql`].
pub struct Lite<'a>(pub &'a rusqlite::Connection);

fn bind(statement: &mut rusqlite::Statement<'_>, params: &[Value]) -> Result<(), StoreError> {
    use rusqlite::types::ToSqlOutput;
    use rusqlite::types::Value as Lv;
    for (i, value) in params.iter().enumerate() {
        let name = format!("${}", i + 1);
        let Some(index) = statement.parameter_index(&name)? else {
            continue;
        };
        let owned = match value {
            Value::Null => Lv::Null,
            Value::Int(v) => Lv::Integer(*v),
            Value::Real(v) => Lv::Real(*v),
            Value::Text(v) => Lv::Text(v.clone()),
            Value::Blob(v) => Lv::Blob(v.clone()),
        };
        statement.raw_bind_parameter(index, ToSqlOutput::Owned(owned))?;
    }
    Ok(())
}

impl Sql for Lite<'_> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let mut statement = self.0.prepare_cached(sql)?;
        bind(&mut statement, params)?;
        Ok(statement.raw_execute()? as u64)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        use rusqlite::types::ValueRef;
        let mut statement = self.0.prepare_cached(sql)?;
        bind(&mut statement, params)?;
        let width = statement.column_count();
        let mut rows = statement.raw_query();
        let mut read = Vec::new();
        while let Some(row) = rows.next()? {
            let mut values = Vec::with_capacity(width);
            for i in 0..width {
                values.push(match row.get_ref(i)? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(v) => Value::Int(v),
                    ValueRef::Real(v) => Value::Real(v),
                    ValueRef::Text(v) => Value::Text(String::from_utf8_lossy(v).into_owned()),
                    ValueRef::Blob(v) => Value::Blob(v.to_vec()),
                });
            }
            read.push(Row(values));
        }
        Ok(read)
    }

    fn engine(&self) -> Engine {
        Engine::Sqlite
    }
}

/// A parameter as the Rust type PostgreSQL's `ty` takes (the client checks types
/// strictly: an `INT8` wants an `i64`, a `SMALLINT` an `i16`).
fn pg_param(value: &Value, ty: &Type) -> Result<Box<dyn ToSql + Sync + Send>, StoreError> {
    let wrong = || {
        StoreError::Postgres(format!(
            "a parameter {value:?} cannot be sent as {}",
            ty.name()
        ))
    };
    Ok(match (value, ty) {
        (Value::Null, &Type::INT8) => Box::new(None::<i64>),
        (Value::Null, &Type::INT4) => Box::new(None::<i32>),
        (Value::Null, &Type::INT2) => Box::new(None::<i16>),
        (Value::Null, &Type::BOOL) => Box::new(None::<bool>),
        (Value::Null, &Type::BYTEA) => Box::new(None::<Vec<u8>>),
        (Value::Null, &Type::FLOAT8) => Box::new(None::<f64>),
        (Value::Null, _) => Box::new(None::<String>),
        (Value::Int(v), &Type::INT8) => Box::new(*v),
        (Value::Int(v), &Type::INT4) => Box::new(i32::try_from(*v).map_err(|_| wrong())?),
        (Value::Int(v), &Type::INT2) => Box::new(i16::try_from(*v).map_err(|_| wrong())?),
        (Value::Int(v), &Type::BOOL) => Box::new(*v != 0),
        (Value::Int(v), &Type::FLOAT8) => Box::new(*v as f64),
        (Value::Int(v), _) => Box::new(v.to_string()),
        (Value::Real(v), &Type::FLOAT8) => Box::new(*v),
        (Value::Real(v), _) => Box::new(v.to_string()),
        (Value::Text(v), &Type::BYTEA) => Box::new(v.clone().into_bytes()),
        (Value::Text(v), _) => Box::new(v.clone()),
        (Value::Blob(v), &Type::BYTEA) => Box::new(v.clone()),
        (Value::Blob(_), _) => return Err(wrong()),
    })
}

/// A PostgreSQL column as a [`Value`], by its type.
fn pg_value(row: &postgres::Row, i: usize) -> Result<Value, StoreError> {
    let ty = row.columns()[i].type_().clone();
    Ok(match ty {
        Type::INT8 => row.try_get::<_, Option<i64>>(i)?.into(),
        Type::INT4 => row.try_get::<_, Option<i32>>(i)?.map(i64::from).into(),
        Type::INT2 => row.try_get::<_, Option<i16>>(i)?.map(i64::from).into(),
        Type::BOOL => row.try_get::<_, Option<bool>>(i)?.into(),
        Type::FLOAT8 => row
            .try_get::<_, Option<f64>>(i)?
            .map_or(Value::Null, Value::Real),
        Type::BYTEA => row
            .try_get::<_, Option<Vec<u8>>>(i)?
            .map_or(Value::Null, Value::Blob),
        _ => row.try_get::<_, Option<String>>(i)?.into(),
    })
}

fn pg_run(
    client: &mut impl postgres::GenericClient,
    sql: &str,
    params: &[Value],
) -> Result<(postgres::Statement, Vec<Box<dyn ToSql + Sync + Send>>), StoreError> {
    let statement = client.prepare(sql)?;
    let bound = params
        .iter()
        .zip(statement.params())
        .map(|(value, ty)| pg_param(value, ty))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((statement, bound))
}

fn pg_refs(bound: &[Box<dyn ToSql + Sync + Send>]) -> Vec<&(dyn ToSql + Sync)> {
    bound
        .iter()
        .map(|value| value.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

fn pg_exec(
    client: &mut impl postgres::GenericClient,
    sql: &str,
    params: &[Value],
) -> Result<u64, StoreError> {
    let (statement, bound) = pg_run(client, sql, params)?;
    Ok(client.execute(&statement, &pg_refs(&bound))?)
}

fn pg_rows(
    client: &mut impl postgres::GenericClient,
    sql: &str,
    params: &[Value],
) -> Result<Vec<Row>, StoreError> {
    let (statement, bound) = pg_run(client, sql, params)?;
    client
        .query(&statement, &pg_refs(&bound))?
        .iter()
        .map(|row| (0..row.len()).map(|i| pg_value(row, i)).collect())
        .map(|values: Result<Vec<Value>, StoreError>| values.map(Row))
        .collect()
}

/// `Sql` for a PostgreSQL connection and a transaction on one: the same two calls.
macro_rules! pg_sql {
    ($($client:ty),+) => {$(
        impl Sql for $client {
            fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
                pg_exec(self, sql, params)
            }

            fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
                pg_rows(self, sql, params)
            }

            fn engine(&self) -> Engine {
                Engine::Postgres
            }
        }
    )+};
}

pg_sql!(postgres::Client, postgres::Transaction<'_>);

impl Sql for rusqlite::Connection {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        Lite(self).exec(sql, params)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        Lite(self).rows(sql, params)
    }

    fn engine(&self) -> Engine {
        Engine::Sqlite
    }
}
