import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** An item as the SDK writes and reads it. */
export type Item = Record<string, AttributeValue>;

/**
 * An item image as DynamoDB, DynamoDB Streams (SDK) and `aws-lambda` stream events all shape it:
 * the decoders accept any of them.
 */
export type ItemImage = Readonly<
  Record<
    string,
    {
      S?: string | undefined;
      N?: string | undefined;
      NULL?: boolean | undefined;
      BOOL?: boolean | undefined;
      SS?: readonly string[] | undefined;
      L?: readonly { S?: string | undefined }[] | undefined;
    }
  >
>;
