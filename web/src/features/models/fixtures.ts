/** Test data of the model screens: model types with their files, and model versions. */
import type { ModelFile, ModelType, ModelVersion } from '@/api/generated';

export const SENSOR_LABELS = ['Pick base', 'Pick cover', 'Fasten screws', 'Inspect', 'background'];

export const modelFile = (id: number, model_type: number, extra: Partial<ModelFile> = {}): ModelFile => ({
  id,
  model_type,
  name: `model-${id}.onnx`,
  version: `demo-${id}`,
  labels: SENSOR_LABELS,
  sha256: `${id}`.repeat(64).slice(0, 64),
  size_bytes: 1_845_033,
  created_at: new Date(2026, 0, 2, 3, 4, 5).getTime(),
  ...extra,
});

export const modelType = (id: number, name: string, extra: Partial<ModelType> = {}): ModelType => ({
  id,
  name,
  description: '',
  input_width: 64,
  input_height: 48,
  hidden: 48,
  model_files: [],
  created_at: 0,
  ...extra,
});

/** The default type with two files, a second of the same frame size with one, a third of
 * another size with none. */
export const modelTypes = (): ModelType[] => [
  modelType(1, 'Step classifier 64×48', {
    description: 'The whole frame at 64×48: the default.',
    model_files: [modelFile(1, 1), modelFile(2, 1, { labels: ['Weld', 'background'] })],
  }),
  modelType(2, 'Wide classifier 64×48', { hidden: 128, model_files: [modelFile(3, 2, { name: 'wide.onnx' })] }),
  modelType(3, 'Close-up 96×72', { input_width: 96, input_height: 72, hidden: 32 }),
];

export const modelVersion = (id: number, is_deleted: boolean, extra: Partial<ModelVersion> = {}): ModelVersion => ({
  id,
  version: `t1-r${id}`,
  task: 1,
  model_type: null,
  is_deleted,
  sha256: 'ab'.repeat(32),
  size_bytes: 2048,
  metrics: null,
  training_run: id,
  created_at: Date.UTC(2026, 0, 2, 3, 4, 5),
  ...extra,
});
