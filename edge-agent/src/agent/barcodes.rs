//! Tasks started by the barcodes the cameras read (issue 31): a camera's worker that
//! read a barcode the organisation associated with a task asks for it
//! (`crate::cameras::Switch`); once a second the agent starts that task on the camera
//! in the worker's place, as a start from the portal would (the open cycle closed as
//! a stop closes it), the value read going on the new task's first cycle.
//!
//! The camera's status then names the barcode (`CameraStatus::barcode`), and the
//! cloud leaves the camera to it, as it leaves a camera to its schedule, until a start
//! or stop from the cloud (a person's) takes it back. The camera keeps the generation
//! of the cloud's last start, so a stop the cloud sends later still applies.

use super::Agent;
use crate::cameras::Switch;

impl Agent {
    /// Starts the tasks the cameras' barcodes asked for.
    pub(super) async fn tend_barcodes(&mut self) {
        let asked: Vec<(String, Switch)> = self
            .workers
            .iter()
            .filter_map(|(camera, w)| w.take_switch().map(|s| (camera.clone(), s)))
            .collect();
        for (camera, s) in asked {
            self.switch(&camera, s).await;
        }
    }

    /// Runs `s`'s task on `camera` in place of the one it runs.
    async fn switch(&mut self, camera: &str, s: Switch) {
        let (mut job, model) = match self.prepare(camera, s.task, s.engine) {
            Ok(p) => p,
            Err(e) => {
                // The task cannot run here (no model fits it): the camera goes on.
                tracing::warn!(
                    camera,
                    task = s.task,
                    barcode = s.barcode,
                    error = %format!("{e:#}"),
                    "a barcode's task could not start"
                );
                return;
            }
        };
        job.barcode = Some(s.barcode.clone());
        if let Some(w) = self.workers.remove(camera) {
            let _ = tokio::task::spawn_blocking(move || w.stop()).await;
        }
        self.health.forget(camera);
        // A person's act at the station: the camera is no longer its schedule's.
        self.running.scheduled.forget(camera);
        self.running
            .barcodes
            .insert(camera.into(), s.barcode.clone());
        tracing::info!(
            camera,
            task = s.task,
            barcode = s.barcode,
            "a barcode started its task"
        );
        // A source that fails waits in `health` to be started again, on the new task.
        let _ = self.launch(job, model);
        self.save();
    }
}
