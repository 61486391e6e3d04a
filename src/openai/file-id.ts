/**
 * OpenAI file ids are the provider's file resource names without their `files/` prefix, both at
 * `POST /v1/files` (which answers with them) and in the Responses API's `input_file.file_id`
 * (which takes them back). Pure.
 */

/** The id in a `files/<id>` resource name. */
export function fileIdFromName(name: string): string {
  return name.startsWith('files/') ? name.slice('files/'.length) : name;
}
