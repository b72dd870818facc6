export type Point = [number, number];

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
