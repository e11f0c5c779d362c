//! The three walks of issue 2 ("Security and bad input"), each over every call the
//! server has. The list of calls comes from `/api/openapi.json` at test time, so a
//! call added to the server without an entry here fails these tests.
//!
//! 1. Role matrix: every call with every one of the nine roles; the expected outcome
//!    comes from [`Role::can`](gemba_shared::Role::can), the one matrix in `gemba-shared`.
//! 2. Tenancy: a user of organisation A calls everything that takes an id with B's
//!    ids (and every call with B in the `Organization` header or host); B is unchanged.
//! 3. Bad input: every body-taking call gets malformed JSON, non-objects, wrong types,
//!    missing fields, a 2 MiB body and unknown ids; a 4xx in the API's error shape,
//!    never a 500, and nothing is written.
//!
//! One file per job: the document ([`openapi`]), the calls ([`requests`]), the set-up
//! ([`world`]), the two tables of calls ([`matrix`], [`cross_tenant`]), and one file
//! per walk ([`roles`], [`tenancy`], [`bad_input`]).

mod cross_tenant;
mod matrix;
mod openapi;
mod requests;
mod world;

mod bad_input;
mod roles;
mod tenancy;
