//! Integration tests of gemba-cloud: the real server on port 0, against a real SQLite
//! file and a real PostgreSQL database (one new database per test), with the embedded
//! MQTT broker. Every test written with [`both!`] runs on both backends. The suites talk to
//! it through the typed client ([`client`]) over the shared wire types; refusals' error
//! bodies, malformed bodies and the cloud's own answers (`/api/health`) stay JSON.

mod client;
mod common;

mod account;
mod admin_reports;
mod analytics;
mod annotations;
mod assistant;
mod assistant_llm_fault;
mod audit;
mod barcodes;
mod broker;
mod broker_tls;
mod camera_events;
mod camera_states;
mod clips;
mod clone_into;
mod cycle_changes;
mod demo;
mod device_config;
mod device_recording;
mod devices;
mod dynsec;
mod features;
mod files;
mod flows;
mod freshness;
mod fuzz_found;
mod hardening;
mod https;
mod issues;
mod kaizen;
mod labeler;
mod learning_loop;
mod lengths;
mod lines;
mod live;
mod media_session;
mod model_types;
mod monitoring;
mod opcua;
mod pg_template;
mod portal;
mod privacy;
mod push;
mod queue;
mod rectification;
mod releases;
mod screenshots;
mod service;
mod service_tokens;
mod sop;
mod sso;
mod stored_objects;
mod stream;
mod tampering;
mod tasks;
mod telemetry;
mod tenancy;
mod totp_at_rest;
mod training;
mod upload_links;
mod validation;
mod video_entity;
mod video_metadata;
mod videos;
mod virtual_tasks;
mod walks;
