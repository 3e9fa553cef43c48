use super::import::ImportError;
use super::schema::RotationError;
use crate::geometry::{CompoundError, HullError, MeshError};
use crate::math::Real;
use crate::rules::{FieldError, ValueError};
use std::path::PathBuf;
use thiserror::Error;

/// Why a scene could not be read, checked or written. Messages start with where the problem is:
/// `FILE:LINE:COL` from the parser, or `FILE: field.path` for checks made after parsing. Each is
/// one line: control characters that names, paths or strings in a file may hold (a newline in
/// a glTF node's name) are written as escapes.
#[derive(Debug, Error)]
pub enum SceneError {
    /// The file could not be read or written.
    #[error("{}", one_line(format!("{}: {}", .path.display(), .source)))]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The text is not a valid scene (or recording).
    #[error("{}", one_line(format!("{}:{}:{}: {}", .path.display(), .line, .col, .message)))]
    Parse {
        /// The file.
        path: PathBuf,
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1.
        col: usize,
        /// What the parser expected.
        message: String,
    },
    /// A value is out of range or inconsistent.
    #[error("{}", one_line(format!("{}: {}: {}", .path.display(), .field, .message)))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The field, as a path into the scene (`bodies[3].shape`).
        field: String,
        /// What is wrong with it.
        message: Problem,
    },
}

/// What is wrong with a field of a scene or recording, after parsing.
#[derive(Debug, Error)]
pub enum Problem {
    /// A shape out of range, or one that builds nothing.
    #[error(transparent)]
    Shape(Box<ShapeError>),
    /// A setting out of range.
    #[error(transparent)]
    Setting(#[from] FieldError),
    /// One of the scene's own checks (its version, its counts, a generator, a recording's
    /// order), in words.
    #[error("{0}")]
    Check(String),
}

impl From<ShapeError> for Problem {
    fn from(error: ShapeError) -> Self {
        Problem::Shape(Box::new(error))
    }
}

impl From<String> for Problem {
    fn from(message: String) -> Self {
        Problem::Check(message)
    }
}

impl SceneError {
    /// The line the problem is on, when the parser gave one.
    pub fn line(&self) -> Option<usize> {
        match self {
            SceneError::Parse { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`), so a message stays one line.
pub fn one_line(text: String) -> String {
    if !text.chars().any(char::is_control) {
        return text;
    }
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// What is wrong with a shape as a scene describes it. The message starts with the field inside
/// the shape when there is one (`children[2].shape: …`, `points[4]: …`); [`SceneError::Shape`]
/// puts the file and the shape's own place in the scene before it.
#[derive(Debug, Error)]
pub enum ShapeError {
    /// A problem at a field inside the shape.
    #[error("{field}: {error}")]
    At {
        /// The field, relative to the shape (`children[2].shape`, `cell`).
        field: String,
        /// What is wrong there.
        error: Box<ShapeError>,
    },
    /// A number out of its range.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// A hull's points spread too far or too little.
    #[error("the points span {0}")]
    Span(ValueError),
    /// The points build no hull.
    #[error(transparent)]
    Hull(#[from] HullError),
    /// The triangles or heights build no mesh.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// The children build no compound.
    #[error("{}", compound_message(.0))]
    Compound(CompoundError),
    /// A rotation that is not finite or not a rotation.
    #[error(transparent)]
    Rotation(#[from] RotationError),
    /// A height field wider than the coordinate range.
    #[error(
        "the field spans {span:e} m ({rows} x {cols} heights {cell} m apart), more than the {limit:e} m that keeps its corners within ±{coordinate} m"
    )]
    FieldSpan {
        /// Its extent, m.
        span: f64,
        /// Rows of heights.
        rows: usize,
        /// Heights in a row.
        cols: usize,
        /// The cell, m.
        cell: Real,
        /// The widest allowed, m.
        limit: f64,
        /// The coordinate limit, m.
        coordinate: Real,
    },
    /// A row of heights of another length than the first.
    #[error("heights[{row}] has {len} values, heights[0] has {cols}")]
    RaggedRow {
        /// The row.
        row: usize,
        /// Its length.
        len: usize,
        /// The first row's length.
        cols: usize,
    },
    /// A compound's child that is not convex.
    #[error("a compound's children are spheres, cuboids, capsules and convex hulls")]
    ChildNotConvex,
    /// A mesh or height field among a generator's shapes.
    #[error("generators make dynamic bodies: a triangle mesh or height field cannot be one")]
    MeshInGenerator,
    /// A compound's selectors without a file.
    #[error("object, scale and decomposition select from a mesh file: give a file too")]
    DecompositionWithoutFile,
    /// A mesh's or hull's selectors without a file.
    #[error("object and scale select from a mesh file: give a file too")]
    SelectorWithoutFile,
    /// A shape naming a file in a scene not loaded from its file.
    #[error("file \"{0}\": mesh files are read when a scene is loaded from its file; this scene was not")]
    Unread(String),
    /// A file and inline data (`points`, `vertices and indices`, `children`) both given.
    #[error("file: give either a file or {0}, not both")]
    FileAndInline(&'static str),
    /// The named file could not be imported.
    #[error("file \"{name}\": {error}")]
    Import {
        /// The name as the scene gives it.
        name: String,
        /// Why.
        error: ImportError,
    },
    /// The shape read from a file fails a check.
    #[error("file \"{name}\": {}: {error}", .path.display())]
    InFile {
        /// The name as the scene gives it.
        name: String,
        /// The file's path.
        path: PathBuf,
        /// What is wrong with the shape.
        error: Box<ShapeError>,
    },
    /// V-HACD found no convex part in the file's mesh.
    #[error("file \"{name}\": {}: the decomposition found no convex part", .path.display())]
    NoConvexPart {
        /// The name as the scene gives it.
        name: String,
        /// The file's path.
        path: PathBuf,
    },
}

impl ShapeError {
    /// `error` placed at `field` inside the shape.
    pub(crate) fn at(field: impl Into<String>, error: impl Into<ShapeError>) -> ShapeError {
        ShapeError::At { field: field.into(), error: Box::new(error.into()) }
    }
}

/// A compound's error with the child named by its field: `children[2]: …`.
fn compound_message(e: &CompoundError) -> String {
    match e {
        CompoundError::Empty => format!("children: {e}"),
        other => {
            let s = other.to_string();
            match s.strip_prefix("child ").and_then(|r| r.split_once(' ')) {
                Some((i, rest)) => format!("children[{i}]: {rest}"),
                None => s,
            }
        }
    }
}
