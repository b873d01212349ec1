import { appendFile } from 'node:fs/promises';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/**
 * Spans as OTLP JSON lines, one export request a line: the body an OTLP/HTTP JSON exporter would
 * POST, serialised by the SDK's own transformer, so any tool that reads OTLP JSON reads the file.
 */
export class OtlpJsonFileExporter implements SpanExporter {
  readonly #path: string;
  #writing: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const body = JsonTraceSerializer.serializeRequest(spans);
    if (body === undefined) {
      done({ code: ExportResultCode.FAILED, error: new Error('spans not serialisable') });
      return;
    }
    const line = `${new TextDecoder().decode(body)}\n`;
    // One append after another: lines of two exports never interleave.
    this.#writing = this.#writing
      .then(() => appendFile(this.#path, line))
      .then(
        () => done({ code: ExportResultCode.SUCCESS }),
        (error: unknown) => done({ code: ExportResultCode.FAILED, error: error as Error })
      );
  }

  async forceFlush(): Promise<void> {
    await this.#writing;
  }

  async shutdown(): Promise<void> {
    await this.#writing;
  }
}
