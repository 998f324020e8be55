// Validation at the edge: request bodies and queries are parsed by zod schemas, documented from the same schema.
import { applyDecorators, Body, type PipeTransform, Query } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { z } from 'zod';

export class ZodValidationPipe<Schema extends z.ZodType> implements PipeTransform<unknown, z.infer<Schema>> {
  constructor(private readonly schema: Schema) {}

  transform(value: unknown): z.infer<Schema> {
    // A missing body arrives as {} from body-parser but as undefined without a content type.
    return this.schema.parse(value ?? {});
  }
}

export function ValidBody<Schema extends z.ZodType>(schema: Schema): ParameterDecorator {
  return Body(new ZodValidationPipe(schema));
}

export function ValidQuery<Schema extends z.ZodType>(schema: Schema): ParameterDecorator {
  return Query(new ZodValidationPipe(schema));
}

/** OpenAPI request-body documentation generated from the schema that validates it; `example` is what Swagger UI's "Try it out" sends. */
export function DocumentedBody(schema: z.ZodType, description?: string, example?: object): MethodDecorator & ClassDecorator {
  const jsonSchema = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return applyDecorators(ApiBody({ description, schema: example ? { ...jsonSchema, examples: [example] } : jsonSchema }));
}
