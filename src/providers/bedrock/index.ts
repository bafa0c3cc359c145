export type { AwsCredentialSource } from "./credentials.js";
export { BedrockModel, type BedrockOptions, bedrock } from "./definition.js";
export type { AwsCredentials } from "./sigv4.js";
