import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CloudFormationTemplate } from './stepfunctions/index.js';

const MAIN = fileURLToPath(new URL('./synth-template-main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let synthesized: Promise<CloudFormationTemplate> | undefined;

/**
 * The template the cloud deploys, synthesized without bundling in a child process: loaded here,
 * aws-cdk-lib and cdk-nag stayed in the stack's process for good (about 145 MiB of its resident
 * memory). Once per process: the template depends on the code alone (and CDK context given by
 * the environment, which a process does not change).
 */
export const synthesizeTemplate = (): Promise<CloudFormationTemplate> => {
  synthesized ??= new Promise<CloudFormationTemplate>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', MAIN],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: process.env },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`synthesizing the CDK app failed: ${stderr.trim() || error.message}`));
          return;
        }
        resolve(JSON.parse(stdout) as CloudFormationTemplate);
      }
    );
  });
  // A failed synthesis is tried again by the next stack, not remembered.
  synthesized.catch(() => {
    synthesized = undefined;
  });
  return synthesized;
};
