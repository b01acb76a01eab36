/**
 * `GET /api/openapi.json`: an OpenAPI 3.1 description of the HTTP API, made from the route table
 * (api-routes.ts) and its zod schemas (api-schemas.ts) with `z.toJSONSchema`, the schemas the
 * handlers parse requests with. A schema with a `meta({ id })` becomes a component every use refers to.
 */
import { z } from 'zod';
import { ERROR_KINDS, type ErrorKind } from '../errors.js';
import { API_ROUTES, type ApiRoute } from './api-routes.js';
import { errorBodySchema } from './api-schemas.js';

type JsonSchema = Record<string, unknown>;

/** What any route may answer besides its own errors: the browser guard's refusals, a bad path, a fault. */
const EVERY_ROUTE: readonly ErrorKind[] = ['malformed', 'forbidden', 'wrong-host', 'internal'];

export interface OpenApiOptions {
  /** Whether the server takes a token (the security schemes are described only then). */
  readonly token: boolean;
  /** The version the description gives as `info.version`. */
  readonly version?: string;
}

export function openApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  /** The JSON Schema of a zod schema, its named parts moved to the components and referred to there. */
  const schemaOf = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    const {
      $schema: _,
      $defs,
      ...json
    } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
    for (const [id, def] of Object.entries($defs ?? {})) components[id] ??= toComponents(def as JsonSchema);
    return toComponents(json);
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, route] of Object.entries(API_ROUTES) as Array<[string, ApiRoute]>) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const parameters = [
      ...[...route.path.matchAll(/:(\w+)/g)].map(([, param]) => ({
        name: param,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...Object.entries(route.query?.shape ?? {}).map(([param, schema]) => {
        const { description, ...json } = schemaOf(schema as z.ZodType, 'input');
        return {
          name: param,
          in: 'query',
          required: false,
          ...(description !== undefined && { description }),
          schema: json,
        };
      }),
    ];
    const security = route.public ? [] : undefined;
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      operationId: name,
      summary: route.summary,
      ...(route.description && { description: route.description }),
      ...(parameters.length > 0 && { parameters }),
      ...(route.body && {
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } },
      }),
      responses: {
        [route.ok.status]: {
          description: route.ok.description,
          content: {
            [route.ok.mediaType ?? 'application/json']: {
              schema: route.ok.schema ? schemaOf(route.ok.schema, 'output') : {},
            },
          },
        },
        ...errorResponses([
          ...route.errors,
          ...EVERY_ROUTE,
          ...(options.token && !route.public ? ['unauthorized' as const] : []),
        ]),
      },
      ...(options.token && security !== undefined && { security }),
    };
  }
  schemaOf(errorBodySchema, 'output');

  return {
    openapi: '3.1.0',
    info: {
      title: 'statewright serve',
      version: options.version ?? '0.1.0',
      description:
        'The HTTP API of `statewright serve` (docs/hosting.md, "The HTTP API"). Errors are `{ error, kind, message }`, the status set by the kind. ' +
        "A web page may call it only from the server's own origin or one named with `--cors-origin`, whose preflights (`OPTIONS`) are answered.",
    },
    paths,
    components: {
      schemas: components,
      ...(options.token && {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'The token serve printed: `Authorization: Bearer <token>`.',
          },
          view: {
            type: 'http',
            scheme: 'View',
            description:
              "The live view's per-tab credential from `POST /api/view-session`: `Authorization: View <credential>`.",
          },
        },
      }),
    },
    ...(options.token && { security: [{ bearer: [] }, { view: [] }] }),
  };
}

/** One response per status the kinds map to, each the typed error body. */
function errorResponses(kinds: readonly ErrorKind[]): Record<string, unknown> {
  const byStatus = new Map<number, Set<ErrorKind>>();
  for (const kind of kinds) {
    const { status } = ERROR_KINDS[kind];
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)!.add(kind);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, set]) => [
        status,
        {
          description: `A typed error of kind ${[...set].map((kind) => `\`${kind}\``).join(' or ')}.`,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      ]),
  );
}

/** Points the `$defs` references of a schema made alone at the document's components. */
function toComponents(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/'));
}
