// gRPC with @grpc/grpc-js and the stubs ts-proto generates from the protos (src/gen/gamerules/v1, made by
// `make stubs`): a promise per call, each with a deadline, and the error details the service sends.
import { BinaryReader } from "@bufbuild/protobuf/wire";
import {
  type CallOptions,
  type ClientUnaryCall,
  credentials,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { GameRulesClient } from "./gen/gamerules/v1/gamerules";

type Unary<Request, Response> = (
  request: Request,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Response) => void,
) => ClientUnaryCall;

export class GameRulesGrpc {
  readonly client: GameRulesClient;

  constructor(target: string) {
    this.client = new GameRulesClient(target, credentials.createInsecure());
  }

  /** One call of a generated method (`grpc.call(grpc.client.newGame, request)`), with a deadline. */
  call<Request, Response>(method: Unary<Request, Response>, request: Request, timeoutMs = 5000): Promise<Response> {
    return new Promise((resolve, reject) => {
      const options = { deadline: Date.now() + timeoutMs };
      method.call(this.client, request, new Metadata(), options, (error, response) =>
        error ? reject(error) : resolve(response),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}

/** What a failed call says: its code's name, the ErrorInfo reason, and every field it is about (as the
 * Python client's `fields`: a BadRequest's field violations, then a PreconditionFailure's subjects). */
export interface GrpcFailure {
  code: string;
  message: string;
  reason: string;
  fields: string[];
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && "code" in error && "metadata" in error;
}

/** Reads the google.rpc.Status the server sends in the `grpc-status-details-bin` trailer. */
export function grpcFailure(error: ServiceError): GrpcFailure {
  const failure: GrpcFailure = { code: status[error.code], message: error.details, reason: "", fields: [] };
  const [details] = error.metadata.get("grpc-status-details-bin");
  if (!(details instanceof Buffer)) {
    return failure;
  }
  const badRequest: string[] = [];
  const preconditions: string[] = [];
  // google.rpc.Status: 3 = repeated google.protobuf.Any details (1 = type_url, 2 = value).
  for (const [typeUrl, value] of fields(details, 3).map((any) => [string(any, 1), bytes(any, 2)] as const)) {
    if (typeUrl.endsWith("/google.rpc.ErrorInfo")) {
      failure.reason = string(value, 1); // ErrorInfo.reason
    } else if (typeUrl.endsWith("/google.rpc.BadRequest")) {
      // BadRequest: 1 = repeated FieldViolation (1 = field).
      badRequest.push(...fields(value, 1).map((violation) => string(violation, 1)));
    } else if (typeUrl.endsWith("/google.rpc.PreconditionFailure")) {
      // PreconditionFailure: 1 = repeated Violation (2 = subject).
      preconditions.push(...fields(value, 1).map((violation) => string(violation, 2)));
    }
  }
  failure.fields = [...badRequest, ...preconditions];
  return failure;
}

/** Every length-delimited value of field `number` in a serialized message. */
function fields(message: Uint8Array, number: number): Uint8Array[] {
  const reader = new BinaryReader(message);
  const found: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === number) {
      found.push(reader.bytes());
    } else {
      reader.skip(wireType);
    }
  }
  return found;
}

function bytes(message: Uint8Array, number: number): Uint8Array {
  return fields(message, number).at(-1) ?? new Uint8Array();
}

function string(message: Uint8Array, number: number): string {
  return new TextDecoder().decode(bytes(message, number));
}
