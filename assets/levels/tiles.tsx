<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.10.2" name="tiles" tilewidth="16" tileheight="16" tilecount="25" columns="25">
 <image source="../sprites/tiles.png" width="400" height="16"/>
 <tile id="0">
  <properties>
   <property name="kind" value="solid"/>
  </properties>
 </tile>
 <tile id="1">
  <properties>
   <property name="kind" value="one_way"/>
  </properties>
 </tile>
 <tile id="2">
  <properties>
   <property name="kind" value="ladder"/>
  </properties>
 </tile>
 <tile id="7">
  <properties>
   <property name="kind" value="slope_right"/>
  </properties>
 </tile>
 <tile id="8">
  <properties>
   <property name="kind" value="slope_left"/>
  </properties>
 </tile>
 <tile id="9">
  <properties>
   <property name="kind" value="slope_right_low"/>
  </properties>
 </tile>
 <tile id="10">
  <properties>
   <property name="kind" value="slope_right_high"/>
  </properties>
 </tile>
 <tile id="11">
  <properties>
   <property name="kind" value="slope_left_high"/>
  </properties>
 </tile>
 <tile id="12">
  <properties>
   <property name="kind" value="slope_left_low"/>
  </properties>
 </tile>
 <tile id="13">
  <properties>
   <property name="kind" value="ceiling_right"/>
  </properties>
 </tile>
 <tile id="14">
  <properties>
   <property name="kind" value="ceiling_left"/>
  </properties>
 </tile>
 <tile id="15">
  <properties>
   <property name="kind" value="ceiling_right_low"/>
  </properties>
 </tile>
 <tile id="16">
  <properties>
   <property name="kind" value="ceiling_right_high"/>
  </properties>
 </tile>
 <tile id="17">
  <properties>
   <property name="kind" value="ceiling_left_high"/>
  </properties>
 </tile>
 <tile id="18">
  <properties>
   <property name="kind" value="ceiling_left_low"/>
  </properties>
 </tile>
 <tile id="19">
  <properties>
   <property name="kind" value="one_way_slope_right"/>
  </properties>
 </tile>
 <tile id="20">
  <properties>
   <property name="kind" value="one_way_slope_left"/>
  </properties>
 </tile>
 <tile id="21">
  <properties>
   <property name="kind" value="one_way_slope_right_low"/>
  </properties>
 </tile>
 <tile id="22">
  <properties>
   <property name="kind" value="one_way_slope_right_high"/>
  </properties>
 </tile>
 <tile id="23">
  <properties>
   <property name="kind" value="one_way_slope_left_high"/>
  </properties>
 </tile>
 <tile id="24">
  <properties>
   <property name="kind" value="one_way_slope_left_low"/>
  </properties>
 </tile>
</tileset>
