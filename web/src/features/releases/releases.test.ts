import {
  EMPTY_FIELDS,
  actionsOf,
  branchProblem,
  checkRelease,
  progress,
  size,
  releaseState,
  signCommand,
  updateSummary,
  versionProblem,
} from './releases';

const NAME_RULE = 'is 1 to 64 letters, digits and . - + _, starting with a letter or digit.';

test('versions and branches follow the server\'s rules, with its messages', () => {
  expect(versionProblem('1.4.0')).toBeNull();
  expect(versionProblem('1.4.0-rc.1+build_7')).toBeNull();
  expect(versionProblem('.1')).toBe(`A version ${NAME_RULE}`);
  expect(versionProblem('1 4')).toBe(`A version ${NAME_RULE}`);
  expect(versionProblem('v'.repeat(65))).toBe(`A version ${NAME_RULE}`);
  expect(branchProblem('feature/ota')).toBeNull();
  expect(branchProblem('/x')).toBe(`A branch ${NAME_RULE}`);
  expect(branchProblem('')).toBe('A branch is 1 to 64 characters.');
  expect(branchProblem('b'.repeat(65))).toBe('A branch is 1 to 64 characters.');
});

test('the upload form wants a non-empty file, a version, a branch and a signature before sending', () => {
  expect(checkRelease(EMPTY_FIELDS, null)).toEqual({
    file: 'Choose the agent binary.',
    version: 'This field is required.',
    signature: 'This field is required.',
  });
  expect(checkRelease({ ...EMPTY_FIELDS, version: ' 1.0 ', branch: 'a b', signature: 'x' }, { size: 0 })).toEqual({
    file: 'The binary is empty.',
    branch: `A branch ${NAME_RULE}`,
  });
  expect(checkRelease({ ...EMPTY_FIELDS, version: '1.0', signature: 'x' }, { size: 3 })).toEqual({});
});

test('the signing command names the chosen target, version and file', () => {
  expect(signCommand({ target: 'x86_64', version: '' })).toBe('gemba-cloud sign-release --target x86_64 --version VERSION FILE');
  expect(signCommand({ target: 'aarch64', version: ' 1.4.0 ' }, 'gemba-agent')).toBe(
    'gemba-cloud sign-release --target aarch64 --version 1.4.0 gemba-agent',
  );
});

test('a release says its state with why it stopped, and its progress', () => {
  expect(releaseState({ currentState: 'rolling_out', reason: null })).toBe('Rolling out');
  expect(releaseState({ currentState: 'stopped', reason: '2 of the first wave failed.' })).toBe('Stopped: 2 of the first wave failed.');
  expect(releaseState({ currentState: 'new_one', reason: null })).toBe('new_one');
  expect(progress({ devices_total: 0, devices_done: 0, devices_failed: 0 })).toBe('no devices');
  expect(progress({ devices_total: 10, devices_done: 3, devices_failed: 0 })).toBe('3 done of 10');
  expect(progress({ devices_total: 10, devices_done: 3, devices_failed: 1 })).toBe('3 done, 1 failed of 10');
  expect(updateSummary(null)).toBe('—');
  expect(updateSummary({ release: 1, version: '1.4.1', state: 'rolled_back' })).toBe('Rolled back: 1.4.1');
});

test('a release moves to the other environment; only a roll-out under way stops, only a stopped one goes on', () => {
  expect(actionsOf({ currentState: 'rolling_out', running_environment: 'dev' })).toEqual({ moveTo: 'prod', stop: true, goOn: false });
  expect(actionsOf({ currentState: 'stopped', running_environment: 'prod' })).toEqual({ moveTo: 'dev', stop: false, goOn: true });
  expect(actionsOf({ currentState: 'deployed', running_environment: 'prod' })).toEqual({ moveTo: 'dev', stop: false, goOn: false });
});

test('a small binary is counted in kilobytes, a large one in megabytes', () => {
  expect(size(2_600)).toBe('2.5 KB');
  expect(size(3 * 1024 * 1024)).toBe('3.0 MB');
});
