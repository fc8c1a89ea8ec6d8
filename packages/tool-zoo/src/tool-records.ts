import { toolId, type ToolDescriptor } from "@afw/contracts";
import { andFilters, type MetadataFilter, type VectorMetadata } from "./vector-store.js";

// The metadata of a tool's vector records and the filter that selects them.

const TAG_PREFIX = "tag:";
/** The metadata of one view's vector record of `tool`: tool id, server, view and a flag per tag. */
export function toolMetadata(tool: ToolDescriptor, view: number): VectorMetadata {
  const metadata: VectorMetadata = { toolId: toolId(tool), server: tool.server, view };
  for (const tag of tool.tags) metadata[`${TAG_PREFIX}${tag}`] = true;
  return metadata;
}

/** The filter for `servers` / `tags` restrictions (server in the list and one of the tags), pushed down to the store. */
export function toolFilter(servers?: readonly string[], tags?: readonly string[]): MetadataFilter | undefined {
  const serverFilter: MetadataFilter | undefined = servers?.length ? { server: { $in: [...servers] } } : undefined;
  let tagFilter: MetadataFilter | undefined;
  if (tags?.length === 1) tagFilter = { [`${TAG_PREFIX}${tags[0]}`]: true };
  else if (tags && tags.length > 1) tagFilter = { $or: tags.map((tag) => ({ [`${TAG_PREFIX}${tag}`]: true })) };
  return andFilters(serverFilter, tagFilter);
}
